#include "obj.h"
#include <stdlib.h>
#include <string.h>
Obj *int_new(int64_t v) { Obj *o = malloc(sizeof *o); o->refcnt = 1; o->v = v; return o; }
void obj_dealloc(Obj *o) { free(o); }
Obj *num_add(Obj *a, Obj *b) { return int_new(a->v + b->v); }
Obj *num_mul(Obj *a, Obj *b) { return int_new(a->v * b->v); }
Obj *num_mod(Obj *a, Obj *b) { int64_t r = a->v % b->v; if (r && ((r < 0) != (b->v < 0))) r += b->v; return int_new(r); }
int num_lt(Obj *a, Obj *b) { return a->v < b->v; }
uint64_t str_hash(const char *s, size_t len) {           /* FNV-1a then a mix */
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ULL; }
    return h ^ (h >> 29);
}
typedef struct { uint64_t hash; char *key; size_t len; int64_t v; } Entry;
struct Dict { Entry *e; size_t cap, n; };
Dict *dict_new(void) { Dict *d = calloc(1, sizeof *d); d->cap = 8; d->e = calloc(d->cap, sizeof(Entry)); return d; }
static Entry *lookup(Dict *d, uint64_t h, const char *k, size_t len) {
    size_t mask = d->cap - 1, i = h & mask, perturb = h;
    for (;;) {
        Entry *e = &d->e[i];
        if (!e->key || (e->hash == h && e->len == len && memcmp(e->key, k, len) == 0)) return e;
        perturb >>= 5; i = (i * 5 + perturb + 1) & mask;
    }
}
static void grow(Dict *d) {
    Entry *old = d->e; size_t oc = d->cap;
    d->cap *= 4; d->e = calloc(d->cap, sizeof(Entry));
    for (size_t i = 0; i < oc; i++) if (old[i].key) *lookup(d, old[i].hash, old[i].key, old[i].len) = old[i];
    free(old);
}
void dict_add(Dict *d, const char *k, size_t len, int64_t v) {
    uint64_t h = str_hash(k, len); Entry *e = lookup(d, h, k, len);
    if (e->key) { e->v += v; return; }
    e->hash = h; e->key = malloc(len); memcpy(e->key, k, len); e->len = len; e->v = v;
    if (++d->n * 3 >= d->cap * 2) grow(d);
}
int64_t dict_get(Dict *d, const char *k, size_t len, int64_t dflt) {
    Entry *e = lookup(d, str_hash(k, len), k, len); return e->key ? e->v : dflt;
}
size_t dict_len(Dict *d) { return d->n; }
