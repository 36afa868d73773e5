/*
 * ops.h -- operators and expression contexts, named as Python's ast module
 * names them.  One X-macro each, so a name can't drift from its number.
 * They live with the values (value_binop() and value_compare() take them)
 * so that the value layer needs nothing from the parser above it, which
 * names them in its trees (ast.h).
 */
#ifndef SANDBOXREPL_OPS_H
#define SANDBOXREPL_OPS_H

/* Binary operators: X(enum suffix, ast name, source symbol). */
#define BINOPS(X)				\
	X(ADD,      "Add",      "+")		\
	X(SUB,      "Sub",      "-")		\
	X(MULT,     "Mult",     "*")		\
	X(MATMULT,  "MatMult",  "@")		\
	X(DIV,      "Div",      "/")		\
	X(MOD,      "Mod",      "%")		\
	X(POW,      "Pow",      "**")		\
	X(LSHIFT,   "LShift",   "<<")		\
	X(RSHIFT,   "RShift",   ">>")		\
	X(BITOR,    "BitOr",    "|")		\
	X(BITXOR,   "BitXor",   "^")		\
	X(BITAND,   "BitAnd",   "&")		\
	X(FLOORDIV, "FloorDiv", "//")

#define UNARYOPS(X)				\
	X(INVERT, "Invert", "~")		\
	X(NOT,    "Not",    "not")		\
	X(UADD,   "UAdd",   "+")		\
	X(USUB,   "USub",   "-")

#define CMPOPS(X)				\
	X(EQ,    "Eq",    "==")			\
	X(NOTEQ, "NotEq", "!=")			\
	X(LT,    "Lt",    "<")			\
	X(LTE,   "LtE",   "<=")			\
	X(GT,    "Gt",    ">")			\
	X(GTE,   "GtE",   ">=")			\
	X(IS,    "Is",    "is")			\
	X(ISNOT, "IsNot", "is not")		\
	X(IN,    "In",    "in")			\
	X(NOTIN, "NotIn", "not in")

#define BOOLOPS(X)				\
	X(AND, "And", "and")			\
	X(OR,  "Or",  "or")

#define CTXS(X)					\
	X(LOAD,  "Load")			\
	X(STORE, "Store")			\
	X(DEL,   "Del")

#define X_ENUM(e, name, sym) BINOP_##e,
enum binop { BINOPS(X_ENUM) BINOP__COUNT };
#undef X_ENUM
#define X_ENUM(e, name, sym) UNARYOP_##e,
enum unaryop { UNARYOPS(X_ENUM) UNARYOP__COUNT };
#undef X_ENUM
#define X_ENUM(e, name, sym) CMPOP_##e,
enum cmpop { CMPOPS(X_ENUM) CMPOP__COUNT };
#undef X_ENUM
#define X_ENUM(e, name, sym) BOOLOP_##e,
enum boolop { BOOLOPS(X_ENUM) BOOLOP__COUNT };
#undef X_ENUM
#define X_ENUM(e, name) CTX_##e,
enum exprctx { CTXS(X_ENUM) CTX__COUNT };
#undef X_ENUM

/* Does a three-way comparison's c (<0, 0, >0) satisfy op, one of ==, !=,
 * <, <=, >, >=?  (The other comparisons, in and is, are not orders.) */
static inline int
cmpop_holds(enum cmpop op, int c)
{
	switch (op) {
	case CMPOP_EQ: return c == 0;
	case CMPOP_NOTEQ: return c != 0;
	case CMPOP_LT: return c < 0;
	case CMPOP_LTE: return c <= 0;
	case CMPOP_GT: return c > 0;
	default: return c >= 0;
	}
}

#endif
