/*
 * value.h -- Python values, passed by value (clox style).
 *
 * A value is a type tag and a word.  Immediate types (None, bool, small int,
 * float) live in the word; everything else points into an arena: the arena
 * of the input line being evaluated, or the arena of a store that copied the
 * value with value_copy().  Values never own memory on their own, so there
 * is nothing to free one by one and a cycle costs nothing.
 *
 * int is arbitrary precision: VT_INT holds an int64_t, VT_BIGINT a GMP
 * integer that does *not* fit in int64_t (the constructors normalise, so an
 * int has exactly one representation).  Both report the type name "int".
 *
 * str is UTF-8 and indexed by code point; lone surrogates (which Python
 * allows in str) are kept in the generalised UTF-8 form (3 bytes each).
 * bytes shares the representation with no encoding.
 *
 * Operations follow CPython 3.11 exactly, including the class and message
 * of every exception they raise; see num.c and the differential tests.
 */
#ifndef SANDBOXREPL_VALUE_H
#define SANDBOXREPL_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gmp.h>

#include "ops.h"
#include "rt.h"

struct arena;
struct sbuf;

/* X(enum suffix, Python type name) */
#define VALUE_TYPES(X)					\
	X(NONE,     "NoneType")				\
	X(BOOL,     "bool")				\
	X(INT,      "int")				\
	X(BIGINT,   "int")				\
	X(FLOAT,    "float")				\
	X(COMPLEX,  "complex")				\
	X(STR,      "str")				\
	X(BYTES,    "bytes")				\
	X(LIST,     "list")				\
	X(TUPLE,    "tuple")				\
	X(DICT,     "dict")				\
	X(SET,      "set")				\
	X(FROZENSET,"frozenset")			\
	X(SLICE,    "slice")				\
	X(ELLIPSIS, "ellipsis")				\
	X(NATIVE,   "builtin_function_or_method")	\
	X(FUNCTION, "function")				\
	X(OBJECT,   "object")

#define X_ENUM(e, name) VT_##e,
enum vtype { VALUE_TYPES(X_ENUM) VT__COUNT };
#undef X_ENUM

struct vbig     { mpz_t z; };
struct vcomplex { double re, im; };
struct vstr {
	size_t	 len;		/* bytes, not counting the NUL */
	size_t	 nchars;	/* code points (== len for bytes) */
	bool	 is_ascii;
	char	 data[];	/* NUL-terminated */
};
struct vlist {
	size_t		 len, cap;
	struct value	*items;
};
struct vtuple {
	size_t		 len;
	struct value	*items;
};
/* dict and set: insertion-ordered entries plus an open-addressed index. */
struct ventry;
struct vdict {
	size_t		 len;		/* live entries */
	size_t		 used;		/* entries[] slots used, live or dead */
	size_t		 cap;		/* entries[] capacity */
	struct ventry	*entries;
	size_t		 nindex;	/* power of two */
	int64_t		*index;		/* -1 empty, -2 deleted, else entry */
};
struct vslice;
struct vnative;
struct vfunction;
struct vobject;

typedef struct value {
	enum vtype	type;
	union {
		bool		  b;
		int64_t		  i;
		double		  f;
		struct vbig	 *big;
		struct vcomplex	 *c;
		struct vstr	 *s;		/* STR, BYTES */
		struct vlist	 *list;
		struct vtuple	 *tuple;
		struct vdict	 *dict;		/* DICT, SET, FROZENSET */
		struct vslice	 *slice;
		struct vnative	 *native;
		struct vfunction *func;
		struct vobject	 *obj;
	} as;
} value;

struct ventry {
	uint64_t	hash;
	bool		live;
	value		key;
	value		val;		/* VT_NONE for sets */
};

struct vslice { value start, stop, step; };

/*
 * A builtin function or method.  self is VT_NONE for plain functions.
 * kwnames[i] names args[nargs + i]; natives reject keywords they do not
 * take with CPython's TypeError.
 */
typedef bool (*native_fn)(struct rt *rt, value self, const value *args,
    size_t nargs, const char *const *kwnames, size_t nkw, value *out);

struct vnative {
	const char	*name;		/* "round", "read", ... */
	native_fn	 fn;
	value		 self;		/* bound receiver, or None */
	const void	*data;		/* per-entry data for the native */
};

#define IS_NONE(v)	((v).type == VT_NONE)
#define IS_BOOL(v)	((v).type == VT_BOOL)
#define IS_INT(v)	((v).type == VT_INT || (v).type == VT_BIGINT)
#define IS_FLOAT(v)	((v).type == VT_FLOAT)
#define IS_STR(v)	((v).type == VT_STR)
#define IS_BYTES(v)	((v).type == VT_BYTES)
#define IS_LIST(v)	((v).type == VT_LIST)
#define IS_TUPLE(v)	((v).type == VT_TUPLE)
#define IS_DICT(v)	((v).type == VT_DICT)

/* ---- constructors (value.c; all allocate in the given arena) ---- */
/* (the four that allocate nothing are inline: the evaluator makes them
 * for every operand, and a call each cost more than the value) */
static inline value
value_none(void)
{
	value v = { .type = VT_NONE };
	return v;
}

static inline value
value_bool(bool b)
{
	value v = { .type = VT_BOOL, .as.b = b };
	return v;
}

static inline value
value_int(int64_t i)
{
	value v = { .type = VT_INT, .as.i = i };
	return v;
}

static inline value
value_float(double f)
{
	value v = { .type = VT_FLOAT, .as.f = f };
	return v;
}
/* Takes a copy of z, normalised to VT_INT when it fits. */
value value_int_mpz(struct arena *a, const mpz_t z);
/* Parse a decimal/hex/octal/binary literal with underscores removed. */
value value_int_str(struct arena *a, const char *digits, int base);
value value_complex(struct arena *a, double re, double im);
/* s must be valid (generalised) UTF-8; nchars is computed. */
value value_str(struct arena *a, const char *s, size_t len);
value value_cstr(struct arena *a, const char *s);
value value_bytes(struct arena *a, const char *s, size_t len);
/* A str or bytes (type VT_STR or VT_BYTES) of len bytes that the caller
 * writes at *data (zeroed, terminated) and then hands to
 * value_str_finish(), which counts its characters: a big result built
 * in place instead of copied. */
value value_str_alloc(struct arena *a, enum vtype type, size_t len,
    char **data);
void value_str_finish(value v);
value value_list(struct arena *a, size_t cap);
value value_tuple(struct arena *a, size_t len);	/* items zeroed = None */
value value_dict(struct arena *a);
value value_set(struct arena *a);
value value_ellipsis(void);
value value_slice(struct arena *a, value start, value stop, value step);
value value_native(struct arena *a, const char *name, native_fn fn,
    value self, const void *data);

/* ---- containers (value.c; the dict/set lookups compare.c) ---- */
void value_list_append(struct arena *a, value list, value item);
/* dict/set: false with an exception when the key is unhashable. */
bool value_dict_set(struct rt *rt, value dict, value key, value val);
/* *found false when absent. */
bool value_dict_get(struct rt *rt, value dict, value key, value *out,
    bool *found);
/* Remove key and give its value (*found false when absent; an empty
 * dict answers absent without hashing, as CPython's {}.pop([]) does). */
bool value_dict_take(struct rt *rt, value dict, value key, value *out,
    bool *found);
bool value_set_add(struct rt *rt, value set, value key);

/* Append every item of an iterable to list (capped by max_seq_len). */
bool value_list_extend(struct rt *rt, value list, value iterable);
/* Add every item of an iterable to a set (capped by max_seq_len);
 * TypeError for an unhashable item. */
bool value_set_update(struct rt *rt, value set, value iterable);
/* The items of any iterable, as a new list. */
bool value_collect(struct rt *rt, value iterable, value *list);

/* ---- queries (value.c; value_hash compare.c) ---- */
const char *value_type_name(value v);
bool value_truthy(struct rt *rt, value v, bool *out);
bool value_hash(struct rt *rt, value v, uint64_t *out);
/* Identity as Python's "is" sees it for our model. */
bool value_is(value a, value b);

/* ---- representation (repr.c) ---- */
/* repr(v), appended to out.  Fails for ints past INT_MAX_STR_DIGITS
 * (ValueError, as CPython 3.11) and for nesting past the depth cap. */
bool value_repr(struct rt *rt, value v, struct sbuf *out);
/* str(v) */
bool value_str_of(struct rt *rt, value v, struct sbuf *out);
/* Python's repr of a double ('r' format: shortest round-trip). */
void value_float_repr(double f, struct sbuf *out);
/* At most how many bytes value_str_repr() writes for these len bytes. */
uint64_t value_repr_bound(const char *s, size_t len, bool is_bytes);
/* Python's repr of a str/bytes body with its quotes. */
void value_str_repr(const struct vstr *s, bool is_bytes, struct sbuf *out);

/* ---- operations (operator.c, which hands numbers to num.c; value_compare
 * and value_eq compare.c; iteration and len value.c) ---- */
bool value_binop(struct rt *rt, enum binop op, value a, value b, value *out);
bool value_unaryop(struct rt *rt, enum unaryop op, value a, value *out);
/* Comparison a OP b for every cmpop (IN/NOTIN: a in b); the result is a
 * Python value (a bool here). */
bool value_compare(struct rt *rt, enum cmpop op, value a, value b,
    value *out);
/* a == b as a C bool (via value_compare). */
bool value_eq(struct rt *rt, value a, value b, bool *out);
/* container[key]: an index or a slice (key a VT_SLICE) of list, tuple,
 * str or bytes, or a dict lookup; CPython's IndexError/KeyError/TypeError. */
bool value_getitem(struct rt *rt, value container, value key, value *out);
/* Iterate: calls fn for each item of an iterable; TypeError if not
 * iterable.  fn returns false to propagate its exception. */
/* Would value_iterate() iterate v, rather than raise "'X' object is not
 * iterable"?  (What CPython's iter() decides, asked before iterating.) */
bool value_is_iterable(value v);
bool value_iterate(struct rt *rt, value iterable,
    bool (*fn)(struct rt *rt, value item, void *ctx), void *ctx);

/* ---- the slots of the types the value layer does not own ----
 *
 * VT_OBJECT values (the object model's modules, types, files, ranges,
 * iterators, views ...) and VT_FUNCTION values (lambdas) belong to the
 * layers above.  As a CPython object starts with ob_type, each of them
 * starts with a struct vhead that points at its type's slots, set by the
 * code that made it, so the value layer asks the object itself for its
 * type name, repr, items and length and never names the layers above.
 * A NULL slot means the type has no such behaviour: value_iterate() and
 * value_len() raise CPython's TypeError for it.
 */
typedef bool (*value_item_fn)(struct rt *rt, value item, void *ctx);

struct value_slots {
	/* The name CPython's messages use ('module', 'range', ...). */
	const char	*(*type_name)(value v);
	/* repr(v) appended to out, for a type whose repr holds no values. */
	void		 (*repr)(value v, struct sbuf *out);
	/* A repr "name(items)" (a dict view): true and its parts, else
	 * false and repr() is used.  NULL: never. */
	bool		 (*repr_items)(value v, const char **name,
			    value *items);
	/* Can v be iterated (has it CPython's tp_iter)?  Then iterate()
	 * walks it; either NULL: no value of the type iterates. */
	bool		 (*iterable)(value v);
	bool		 (*iterate)(struct rt *rt, value v, value_item_fn fn,
			    void *ctx);
	bool		 (*len)(struct rt *rt, value v, int64_t *out);
	/* Does v point into the arena of the input that made it (rather
	 * than being a static object that lives for the whole process)? */
	bool		 (*in_arena)(value v);
};

struct vhead {
	const struct value_slots *slots;
};

/* Does v reach something value_copy() shares instead of copying (a
 * lambda, an object of the model in an input's arena)?  Such values keep
 * pointing into the arena they were made in, which must then outlive
 * them. */
bool value_holds_shared(value v);
/* len(v) for any value; TypeError "object of type 'X' has no len()". */
bool value_len(struct rt *rt, value v, int64_t *out);

/* ---- copying between arenas ---- */
/* Deep copy into dst (shared substructure and cycles preserved). */
value value_copy(struct arena *dst, value v);
void value_copy_many(struct arena *dst, value *vs, size_t n);
/* The same, but what already lives in dst is kept, not copied: for a
 * store that copies in what an input added to values it holds (which
 * the input must not have changed in place). */
void value_copy_new(struct arena *dst, value *vs, size_t n);
/* About the bytes value_copy_many() would allocate for vs (each object
 * once), without copying. */
size_t value_size_many(const value *vs, size_t n);

#endif
