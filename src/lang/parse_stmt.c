/*
 * parse_stmt.c -- the simple statements the sandbox parses: expression
 * statements, assignments (chained and augmented), import and from-import;
 * every other statement is refused with what it is.
 */
#include "config.h"

#include <string.h>

#include "base/arena.h"
#include "ast.h"
#include "lex.h"
#include "parse_int.h"
#include "base/unicode.h"
#include "value/value.h"

/* ============================================================ statements */

/* dotted_name -> NAME ('.' NAME)*, NFKC-normalised part by part */
static const char *
dotted_name(struct parser *p)
{
	struct sbuf b = SBUF_INIT;
	const char *r;
	for (;;) {
		if (p->tok.kind != TOK_NAME) {
			sbuf_free(&b);
			error_here(p, NULL);
			return NULL;
		}
		sbuf_adds(&b, identifier(p, &p->tok));
		advance(p);
		if (p->tok.kind != TOK_DOT)
			break;
		sbuf_addc(&b, '.');
		advance(p);
	}
	r = arena_strdup(p->a, sbuf_cstr(&b));
	sbuf_free(&b);
	return r;
}

/* alias -> dotted_name ['as' NAME] (a plain NAME after 'from') */
static struct node *
alias(struct parser *p, bool dotted)
{
	uint32_t start = p->tok.start;
	struct node *n = mk(p, NODE_ALIAS, start, start);
	if (dotted) {
		if ((n->u.alias.name = dotted_name(p)) == NULL)
			return NULL;
	} else {
		if (p->tok.kind != TOK_NAME)
			return error_here(p, NULL);
		n->u.alias.name = identifier(p, &p->tok);
		advance(p);
	}
	if (accept(p, TOK_AS)) {
		if (p->tok.kind != TOK_NAME)
			return error_here(p, NULL);
		n->u.alias.asname = identifier(p, &p->tok);
		advance(p);
	}
	n->end = p->prev_end;
	return n;
}

/* import_name -> 'import' ','.(dotted_name ['as' NAME])+ */
static struct node *
import_name(struct parser *p)
{
	uint32_t start = p->tok.start;
	struct vec names = { NULL, 0, 0 };
	struct node *n;
	advance(p);
	do {
		struct node *a = alias(p, true);
		if (a == NULL)
			return NULL;
		vec_push(p, &names, a);
	} while (accept(p, TOK_COMMA));
	n = mk(p, NODE_IMPORT, start, p->prev_end);
	n->u.import.names = vec_list(&names);
	return n;
}

/*
 * import_from -> 'from' ('.' | '...')* dotted_name 'import' targets |
 *                'from' ('.' | '...')+ 'import' targets
 * targets -> '(' aliases [','] ')' | aliases | '*'
 */
static struct node *
import_from(struct parser *p)
{
	uint32_t start = p->tok.start;
	struct vec names = { NULL, 0, 0 };
	struct node *n = mk(p, NODE_IMPORTFROM, start, start);
	int level = 0;
	bool paren;

	advance(p);
	for (;;) {
		if (accept(p, TOK_DOT))
			level++;
		else if (accept(p, TOK_ELLIPSIS))
			level += 3;
		else
			break;
	}
	if (p->tok.kind != TOK_IMPORT || level == 0)
		if ((n->u.importfrom.module = dotted_name(p)) == NULL)
			return NULL;
	n->u.importfrom.level = level;
	if (!expect(p, TOK_IMPORT))
		return NULL;
	if (p->tok.kind == TOK_STAR) {
		struct node *a = mk(p, NODE_ALIAS, p->tok.start,
		    tok_end(&p->tok));
		a->u.alias.name = "*";
		advance(p);
		vec_push(p, &names, a);
	} else {
		paren = accept(p, TOK_LPAR);
		do {
			struct node *a;
			if (paren && p->tok.kind == TOK_RPAR && names.len > 0)
				break;
			if (!paren && names.len > 0 &&
			    (p->tok.kind == TOK_NEWLINE ||
			    p->tok.kind == TOK_EOF || p->tok.kind == TOK_SEMI))
				return error_here(p, "trailing comma not "
				    "allowed without surrounding parentheses");
			if ((a = alias(p, false)) == NULL)
				return NULL;
			vec_push(p, &names, a);
		} while (accept(p, TOK_COMMA));
		if (paren && !expect(p, TOK_RPAR))
			return NULL;
		if (!paren && p->tok.kind == TOK_COMMA)
			return error_here(p, "trailing comma not allowed "
			    "without surrounding parentheses");
	}
	n->u.importfrom.names = vec_list(&names);
	n->end = p->prev_end;
	return n;
}

static const struct {
	enum token_kind	 kind;
	const char	*what;
} unsupported[] = {
	{ TOK_DEF, "'def' statements" }, { TOK_CLASS, "'class' statements" },
	{ TOK_FOR, "'for' statements" }, { TOK_WHILE, "'while' statements" },
	{ TOK_IF, "'if' statements" }, { TOK_WITH, "'with' statements" },
	{ TOK_TRY, "'try' statements" }, { TOK_RETURN, "'return' statements" },
	{ TOK_DEL, "'del' statements" }, { TOK_PASS, "'pass' statements" },
	{ TOK_BREAK, "'break' statements" },
	{ TOK_CONTINUE, "'continue' statements" },
	{ TOK_RAISE, "'raise' statements" },
	{ TOK_GLOBAL, "'global' statements" },
	{ TOK_NONLOCAL, "'nonlocal' statements" },
	{ TOK_ASSERT, "'assert' statements" },
	{ TOK_ASYNC, "'async' statements" },
	{ TOK_YIELD, "'yield' expressions" }, { TOK_AWAIT, "'await' expressions" },
};

static const struct {
	enum token_kind	kind;
	enum binop	op;
} augassign_ops[] = {
	{ TOK_PLUSEQUAL, BINOP_ADD }, { TOK_MINEQUAL, BINOP_SUB },
	{ TOK_STAREQUAL, BINOP_MULT }, { TOK_ATEQUAL, BINOP_MATMULT },
	{ TOK_SLASHEQUAL, BINOP_DIV }, { TOK_PERCENTEQUAL, BINOP_MOD },
	{ TOK_AMPEREQUAL, BINOP_BITAND }, { TOK_VBAREQUAL, BINOP_BITOR },
	{ TOK_CIRCUMFLEXEQUAL, BINOP_BITXOR },
	{ TOK_LEFTSHIFTEQUAL, BINOP_LSHIFT },
	{ TOK_RIGHTSHIFTEQUAL, BINOP_RSHIFT },
	{ TOK_DOUBLESTAREQUAL, BINOP_POW },
	{ TOK_DOUBLESLASHEQUAL, BINOP_FLOORDIV },
};

/*
 * simple_stmt -> assignment | star_expressions | import_name | import_from
 * assignment -> (star_targets '=')+ star_expressions |
 *               single_target augassign star_expressions
 */
struct node *
simple_stmt(struct parser *p)
{
	struct node *e, *n;
	uint32_t start;
	size_t i;

	if (p->tok.kind == TOK_IMPORT)
		return import_name(p);
	if (p->tok.kind == TOK_FROM)
		return import_from(p);
	for (i = 0; p->tok.kind >= TOK_FIRST_KEYWORD &&
	    i < sizeof unsupported / sizeof unsupported[0]; i++)
		if (p->tok.kind == unsupported[i].kind) {
			if (!p->failed)
				p->err_is_ours = true;
			return error_here(p, arena_printf(p->a, "%s are not "
			    "supported here: only expressions, assignments "
			    "and imports", unsupported[i].what));
		}
	start = p->tok.start;
	if ((e = star_expressions(p)) == NULL)
		return NULL;
	if (p->tok.kind == TOK_COLONEQUAL) {
		/* a walrus needs brackets at statement level */
		if (e->kind == NODE_NAME)
			return error_here(p, NULL);
		return error_span(p, e->start, e->end, arena_printf(p->a,
		    "cannot use assignment expressions with %s",
		    expr_name(e)));
	}
	if (p->tok.kind == TOK_EQUAL) {
		struct vec targets = { NULL, 0, 0 };
		struct node *val = e;
		while (accept(p, TOK_EQUAL)) {
			vec_push(p, &targets, val);
			if (p->tok.kind == TOK_YIELD)
				return error_here(p, "'yield' expressions are "
				    "not supported here");
			if ((val = star_expressions(p)) == NULL)
				return NULL;
		}
		for (i = 0; i < targets.len; i++) {
			struct node *t = targets.items[i];
			const struct node *bad = invalid_target(t);
			if (bad == NULL) {
				set_store(t);
				continue;
			}
			/*
			 * 3.11's invalid_named_expression: with one '=', an
			 * operand (or the last item of a bare tuple) that is
			 * a plain expression gets "Maybe you meant '=='".
			 */
			if (targets.len == 1 && t->kind == NODE_TUPLE &&
			    t->u.seq.elts.len > 0 &&
			    t->start == t->u.seq.elts.items[0]->start)
				t = t->u.seq.elts.items[t->u.seq.elts.len - 1];
			if (targets.len == 1 && t->kind != NODE_NAME &&
			    t->kind != NODE_ATTRIBUTE &&
			    t->kind != NODE_SUBSCRIPT && is_bitwise_operand(t))
				return error_span(p, t->start, t->end,
				    arena_printf(p->a, "cannot assign to %s "
				    "here. Maybe you meant '==' instead of "
				    "'='?", expr_name(t)));
			return error_span(p, bad->start, bad->end,
			    arena_printf(p->a, "cannot assign to %s",
			    expr_name(bad)));
		}
		n = mk(p, NODE_ASSIGN, start, p->prev_end);
		n->u.assign.targets = vec_list(&targets);
		n->u.assign.value = val;
		return n;
	}
	/* the augmented assignment tokens run from += to @= */
	i = p->tok.kind >= TOK_PLUSEQUAL && p->tok.kind <= TOK_ATEQUAL ? 0 :
	    sizeof augassign_ops / sizeof augassign_ops[0];
	for (; i < sizeof augassign_ops / sizeof augassign_ops[0]; i++)
		if (p->tok.kind == augassign_ops[i].kind)
			break;
	if (i < sizeof augassign_ops / sizeof augassign_ops[0]) {
		struct node *val;
		if (e->kind != NODE_NAME && e->kind != NODE_ATTRIBUTE &&
		    e->kind != NODE_SUBSCRIPT)
			return error_span(p, e->start, e->end,
			    arena_printf(p->a, "'%s' is an illegal expression "
			    "for augmented assignment", expr_name(e)));
		advance(p);
		if (p->tok.kind == TOK_YIELD)
			return error_here(p, "'yield' expressions are not "
			    "supported here");
		if ((val = star_expressions(p)) == NULL)
			return NULL;
		set_store(e);
		n = mk(p, NODE_AUGASSIGN, start, p->prev_end);
		n->u.augassign.target = e;
		n->u.augassign.op = augassign_ops[i].op;
		n->u.augassign.value = val;
		return n;
	}
	if (p->tok.kind == TOK_COLON)
		return error_here(p, "annotated assignments are not "
		    "supported here: only expressions, assignments and "
		    "imports");
	n = mk(p, NODE_EXPR, start, p->prev_end);
	n->u.expr.value = e;
	return n;
}

