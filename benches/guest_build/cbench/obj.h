/* A tiny object model in CPython's image: heap-allocated, reference-counted integers whose
   arithmetic lives in another translation unit (as PyNumber_* do in Objects/), so only LTO can
   inline it into the dispatch loop. */
#include <stdint.h>
#include <stddef.h>
typedef struct Obj { int64_t refcnt; int64_t v; } Obj;
Obj *int_new(int64_t v);
void obj_dealloc(Obj *o);
static inline void incref(Obj *o) { o->refcnt++; }
static inline void decref(Obj *o) { if (--o->refcnt == 0) obj_dealloc(o); }
Obj *num_add(Obj *a, Obj *b);
Obj *num_mul(Obj *a, Obj *b);
Obj *num_mod(Obj *a, Obj *b);
int num_lt(Obj *a, Obj *b);
/* dict-like: open addressing over strings */
typedef struct Dict Dict;
Dict *dict_new(void);
void dict_add(Dict *d, const char *key, size_t len, int64_t v);
int64_t dict_get(Dict *d, const char *key, size_t len, int64_t dflt);
size_t dict_len(Dict *d);
uint64_t str_hash(const char *s, size_t len);
int64_t run_vm(const unsigned char *code, Obj **consts, int64_t n);
