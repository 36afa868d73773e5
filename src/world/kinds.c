/*
 * kinds.c -- the engine and kind tables every world consults: their
 * names, which kinds contain the code in a kernel boundary, what each
 * one's container is (jail.h's descriptions: its fake network among
 * them).  A leaf: the kinds (cpython.c, replica.c) and the session
 * read these tables, and world.c, which dispatches to the kinds, is not
 * needed to answer them.
 */
#include "config.h"

#include <string.h>

#include "jail/jail.h"
#include "world.h"

static const char *const engine_names[] = {
#define X(e, name) name,
	WORLD_ENGINES(X)
#undef X
};

const char *
world_engine_name(enum world_engine e)
{
	return (unsigned)e < WORLD_ENGINE__COUNT ? engine_names[e] : "unknown";
}

bool
world_engine_parse(const char *name, enum world_engine *out)
{
	size_t i;

	for (i = 0; i < WORLD_ENGINE__COUNT; i++)
		if (strcmp(name, engine_names[i]) == 0) {
			*out = (enum world_engine)i;
			return true;
		}
	return false;
}

static const enum jail_container_id kind_containers[] = {
#define X(e, name, container, launcher) JAIL_CONTAINER_##container,
	WORLD_KINDS(X)
#undef X
};

const struct jail_container *
world_kind_container(enum world_kind k)
{
	return (unsigned)k < WORLD_KIND__COUNT ?
	    jail_container(kind_containers[k]) : NULL;
}

bool
world_kind_has_fakenet(enum world_kind k)
{
	const struct jail_container *c = world_kind_container(k);

	return c != NULL && c->net == JAIL_NET_FAKE;
}

bool
world_kind_contains(enum world_kind k)
{
	return k == WORLD_KIND_JAIL || k == WORLD_KIND_GVISOR ||
	    k == WORLD_KIND_MICROVM ||
	    k == WORLD_KIND_MODEL_JAIL;
}
