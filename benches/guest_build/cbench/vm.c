/* A switch-dispatched stack VM (no computed gotos, as CPython in wasm). */
#include "obj.h"
enum { LOAD_CONST, LOAD_FAST, STORE_FAST, ADD, MUL, MOD, LT, JUMP_IF_FALSE, JUMP, RETURN, NOP };
int64_t run_vm(const unsigned char *code, Obj **consts, int64_t n) {
    Obj *stack[16], **sp = stack, *fast[4] = {0};
    fast[0] = int_new(0); fast[1] = int_new(0); fast[2] = int_new(n);
    const unsigned char *ip = code;
    for (;;) {
        unsigned char op = *ip++, arg = *ip++;
        switch (op) {
        case LOAD_CONST: incref(consts[arg]); *sp++ = consts[arg]; break;
        case LOAD_FAST: incref(fast[arg]); *sp++ = fast[arg]; break;
        case STORE_FAST: { Obj *o = fast[arg]; fast[arg] = *--sp; if (o) decref(o); break; }
        case ADD: { Obj *b = *--sp, *a = *--sp; *sp++ = num_add(a, b); decref(a); decref(b); break; }
        case MUL: { Obj *b = *--sp, *a = *--sp; *sp++ = num_mul(a, b); decref(a); decref(b); break; }
        case MOD: { Obj *b = *--sp, *a = *--sp; *sp++ = num_mod(a, b); decref(a); decref(b); break; }
        case LT: { Obj *b = *--sp, *a = *--sp; int r = num_lt(a, b); decref(a); decref(b); *sp++ = r ? consts[1] : consts[0]; incref(sp[-1]); break; }
        case JUMP_IF_FALSE: { Obj *c = *--sp; int f = c->v == 0; decref(c); if (f) ip = code + 2 * arg; break; }
        case JUMP: ip = code + 2 * arg; break;
        case NOP: break;
        case RETURN: { int64_t r = fast[1]->v; for (int i = 0; i < 3; i++) decref(fast[i]); return r; }
        }
    }
}
