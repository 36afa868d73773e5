/*
 * parse_display.c -- the bracketed displays: tuples and parenthesised
 * groups, lists, dicts and sets, and the comprehensions that may follow
 * their first element (a generator expression too, alone in a call's
 * parentheses: call() in parse_expr.c).
 *
 * atom_other() (parse_expr.c) enters the nesting budget and calls paren,
 * list_display or brace_display at the opening bracket; their elements
 * are parse_expr.c's expressions again: the parser's own recursion.
 */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>

#include "ast.h"
#include "lex.h"
#include "parse_int.h"

/*
 * for_if_clauses -> ('for' star_targets 'in' disjunction ('if' disjunction)*)+
 */
bool
comprehensions(struct parser *p, struct vec *gens)
{
	while (p->tok.kind == TOK_FOR || p->tok.kind == TOK_ASYNC) {
		struct node *c, *target;
		uint32_t start = p->tok.start;
		struct vec ifs = { NULL, 0, 0 };
		if (p->tok.kind == TOK_ASYNC) {
			error_here(p, "asynchronous comprehensions are not "
			    "supported");
			return false;
		}
		advance(p);
		/* star_targets: a bitwise_or list, checked as a target */
		{
			uint32_t tstart = p->tok.start;
			struct node *first, *e;
			struct vec elts = { NULL, 0, 0 };
			uint32_t tend;
			if (p->tok.kind == TOK_STAR) {
				uint32_t s0 = p->tok.start;
				advance(p);
				if ((e = bitwise_or(p)) == NULL)
					return false;
				first = mk(p, NODE_STARRED, s0, p->prev_end);
				first->u.starred.value = e;
			} else if ((first = bitwise_or(p)) == NULL)
				return false;
			target = first;
			if (p->tok.kind == TOK_COMMA) {
				vec_push(p, &elts, first);
				tend = tok_end(&p->tok);
				while (accept(p, TOK_COMMA)) {
					tend = p->prev_end;
					if (p->tok.kind == TOK_IN)
						break;
					if (p->tok.kind == TOK_STAR) {
						uint32_t s0 = p->tok.start;
						advance(p);
						if ((e = bitwise_or(p)) == NULL)
							return false;
						struct node *st = mk(p,
						    NODE_STARRED, s0, p->prev_end);
						st->u.starred.value = e;
						e = st;
					} else if ((e = bitwise_or(p)) == NULL)
						return false;
					vec_push(p, &elts, e);
					tend = e->end;
				}
				target = mk(p, NODE_TUPLE, tstart, tend);
				target->u.seq.elts = vec_list(&elts);
			}
			if (p->tok.kind != TOK_IN) {
				error_after_element(p, elts.len ?
				    elts.items[elts.len - 1] : first);
				return false;
			}
			if (!check_target(p, target))
				return false;
		}
		advance(p);
		c = mk(p, NODE_COMPREHENSION, start, 0);
		c->u.comprehension.target = target;
		if ((c->u.comprehension.iter = disjunction(p)) == NULL)
			return false;
		c->end = c->u.comprehension.iter->end;
		while (p->tok.kind == TOK_IF) {
			struct node *cond;
			advance(p);
			if ((cond = disjunction(p)) == NULL)
				return false;
			vec_push(p, &ifs, cond);
			c->end = cond->end;
		}
		c->u.comprehension.ifs = vec_list(&ifs);
		vec_push(p, gens, c);
	}
	return true;
}

/* A comprehension may not unpack its element. */
static struct node *
comp_elt_ok(struct parser *p, struct node *elt)
{
	if (elt->kind == NODE_STARRED)
		return error_span(p, elt->start, elt->end,
		    "iterable unpacking cannot be used in comprehension");
	return elt;
}

/*
 * tuple | group | genexp ->
 *   '(' ')' | '(' named_expression ')' | '(' star_named_expression ','
 *   [star_named_expressions] ')' | '(' named_expression for_if_clauses ')'
 */
struct node *
paren(struct parser *p)
{
	uint32_t open = p->tok.start;
	struct node *first, *n;
	struct vec elts = { NULL, 0, 0 };

	advance(p);
	if (p->tok.kind == TOK_RPAR) {
		advance(p);
		n = mk(p, NODE_TUPLE, open, p->prev_end);
		return n;
	}
	if (p->tok.kind == TOK_YIELD)
		return error_here(p, "'yield' is not supported here");
	if ((first = star_named_expression(p)) == NULL)
		return NULL;
	if (p->tok.kind == TOK_FOR || p->tok.kind == TOK_ASYNC) {
		struct vec gens = { NULL, 0, 0 };
		if (comp_elt_ok(p, first) == NULL || !comprehensions(p, &gens))
			return NULL;
		if (!accept(p, TOK_RPAR))
			return error_after_element(p, NULL);
		n = mk(p, NODE_GENERATOREXP, open, p->prev_end);
		n->u.comp.elt = first;
		n->u.comp.generators = vec_list(&gens);
		return n;
	}
	if (p->tok.kind == TOK_RPAR) {
		if (first->kind == NODE_STARRED)
			return error_span(p, first->start, first->end,
			    "cannot use starred expression here");
		advance(p);
		return first;
	}
	if (p->tok.kind != TOK_COMMA)
		return error_after_element(p, first);
	vec_push(p, &elts, first);
	while (accept(p, TOK_COMMA)) {
		struct node *e;
		if (p->tok.kind == TOK_RPAR)
			break;
		if ((e = star_named_expression(p)) == NULL)
			return NULL;
		vec_push(p, &elts, e);
		if (p->tok.kind != TOK_COMMA && p->tok.kind != TOK_RPAR)
			return error_after_element(p, e);
	}
	if (!accept(p, TOK_RPAR))
		return error_after_element(p, NULL);
	n = mk(p, NODE_TUPLE, open, p->prev_end);
	n->u.seq.elts = vec_list(&elts);
	return n;
}

/* list | listcomp -> '[' [star_named_expressions] ']' |
 *                    '[' named_expression for_if_clauses ']' */
struct node *
list_display(struct parser *p)
{
	uint32_t open = p->tok.start;
	struct vec elts = { NULL, 0, 0 };
	struct node *n, *e;

	advance(p);
	while (p->tok.kind != TOK_RSQB) {
		if ((e = star_named_expression(p)) == NULL)
			return NULL;
		if (elts.len == 0 && (p->tok.kind == TOK_FOR ||
		    p->tok.kind == TOK_ASYNC)) {
			struct vec gens = { NULL, 0, 0 };
			if (comp_elt_ok(p, e) == NULL ||
			    !comprehensions(p, &gens))
				return NULL;
			if (!accept(p, TOK_RSQB))
				return error_after_element(p, NULL);
			n = mk(p, NODE_LISTCOMP, open, p->prev_end);
			n->u.comp.elt = e;
			n->u.comp.generators = vec_list(&gens);
			return n;
		}
		vec_push(p, &elts, e);
		if (!accept(p, TOK_COMMA)) {
			if (p->tok.kind == TOK_FOR)
				return error_span(p,
				    elts.items[0]->start, e->end,
				    "did you forget parentheses around the "
				    "comprehension target?");
			if (p->tok.kind != TOK_RSQB)
				return error_after_element(p, e);
			break;
		}
	}
	advance(p);
	n = mk(p, NODE_LIST, open, p->prev_end);
	n->u.seq.elts = vec_list(&elts);
	return n;
}

/*
 * dict | set | dictcomp | setcomp ->
 *   '{' [double_starred_kvpairs] '}' | '{' star_named_expressions '}' |
 *   '{' kvpair for_if_clauses '}' | '{' named_expression for_if_clauses '}'
 */
struct node *
brace_display(struct parser *p)
{
	uint32_t open = p->tok.start;
	struct vec keys = { NULL, 0, 0 }, values = { NULL, 0, 0 };
	struct node *n, *k, *v;
	bool is_dict;

	advance(p);
	if (accept(p, TOK_RBRACE))
		return mk(p, NODE_DICT, open, p->prev_end);
	/* the first entry decides between dict and set */
	if (p->tok.kind == TOK_DOUBLESTAR) {
		uint32_t s0 = p->tok.start;
		is_dict = true;
		advance(p);
		if ((v = bitwise_or(p)) == NULL)
			return NULL;
		if (p->tok.kind == TOK_FOR || p->tok.kind == TOK_ASYNC)
			return error_span(p, s0, v->end, "dict unpacking cannot "
			    "be used in dict comprehension");
		vec_push(p, &keys, NULL);
		vec_push(p, &values, v);
		if (!accept(p, TOK_COMMA) && p->tok.kind != TOK_RBRACE)
			return error_after_element(p, v);
	} else {
		if ((k = star_named_expression(p)) == NULL)
			return NULL;
		is_dict = p->tok.kind == TOK_COLON;
		if (is_dict) {
			if (k->kind == NODE_STARRED)
				return error_span(p, k->start, k->end,
				    "cannot use a starred expression in a "
				    "dictionary value");
			advance(p);
			if (p->tok.kind == TOK_STAR)
				return error_here(p, "cannot use a starred "
				    "expression in a dictionary value");
			if ((v = expression(p)) == NULL)
				return NULL;
			if (p->tok.kind == TOK_FOR || p->tok.kind == TOK_ASYNC) {
				struct vec gens = { NULL, 0, 0 };
				if (!comprehensions(p, &gens))
					return NULL;
				if (!accept(p, TOK_RBRACE))
					return error_after_element(p, NULL);
				n = mk(p, NODE_DICTCOMP, open, p->prev_end);
				n->u.comp.elt = k;
				n->u.comp.value = v;
				n->u.comp.generators = vec_list(&gens);
				return n;
			}
			vec_push(p, &keys, k);
			vec_push(p, &values, v);
		} else {
			if (p->tok.kind == TOK_FOR || p->tok.kind == TOK_ASYNC) {
				struct vec gens = { NULL, 0, 0 };
				if (comp_elt_ok(p, k) == NULL ||
				    !comprehensions(p, &gens))
					return NULL;
				if (!accept(p, TOK_RBRACE))
					return error_after_element(p, NULL);
				n = mk(p, NODE_SETCOMP, open, p->prev_end);
				n->u.comp.elt = k;
				n->u.comp.generators = vec_list(&gens);
				return n;
			}
			vec_push(p, &keys, k);
		}
		if (!accept(p, TOK_COMMA)) {
			if (p->tok.kind != TOK_RBRACE)
				return error_after_element(p, is_dict ? v : k);
		}
	}
	while (p->tok.kind != TOK_RBRACE) {
		if (is_dict) {
			if (accept(p, TOK_DOUBLESTAR)) {
				k = NULL;
				if ((v = bitwise_or(p)) == NULL)
					return NULL;
			} else {
				if ((k = expression(p)) == NULL)
					return NULL;
				if (p->tok.kind == TOK_COMMA ||
				    p->tok.kind == TOK_RBRACE ||
				    p->tok.kind == TOK_FOR)
					/* 3.11 points at the key's last
					 * character */
					return error_span(p,
					    last_char_start(p, k), k->end,
					    "':' expected after dictionary "
					    "key");
				if (p->tok.kind != TOK_COLON)
					return error_after_element(p, k);
				advance(p);
				if (p->tok.kind == TOK_STAR)
					return error_here(p, "cannot use a "
					    "starred expression in a dictionary "
					    "value");
				if ((v = expression(p)) == NULL)
					return NULL;
			}
			vec_push(p, &keys, k);
			vec_push(p, &values, v);
		} else {
			if ((v = star_named_expression(p)) == NULL)
				return NULL;
			vec_push(p, &keys, v);
			if (p->tok.kind == TOK_FOR)
				return error_span(p,
				    keys.items[0]->start, v->end,
				    "did you forget parentheses around the "
				    "comprehension target?");
		}
		if (!accept(p, TOK_COMMA)) {
			if (p->tok.kind != TOK_RBRACE)
				return error_after_element(p, v);
			break;
		}
	}
	advance(p);
	n = mk(p, is_dict ? NODE_DICT : NODE_SET, open, p->prev_end);
	if (is_dict) {
		n->u.dict.keys = vec_list(&keys);
		n->u.dict.values = vec_list(&values);
	} else
		n->u.seq.elts = vec_list(&keys);
	return n;
}
