#include "obj.h"
#include <stdio.h>
#include <time.h>
#include <string.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
/* for i in range(n): s += i*i % 7   (fast: 0=i 1=s 2=n; consts: 0=zero 1=one 2=seven) */
static const unsigned char loop[] = {
    1,0, 1,2, 6,0, 7,12,            /* 0: i < n ? else jump to 12 */
    1,1, 1,0, 1,0, 4,0, 0,2, 5,0,  /* 4: s, i, i, *, 7, % */
    3,0, 2,1,                      /* 10: s = s + ... */
    1,0, 0,1, 3,0, 2,0, 8,0,       /* 12..: i = i + 1; jump 0 -- fixed below */
    9,0 };
int main(int argc, char **argv) {
    unsigned char code[sizeof loop]; memcpy(code, loop, sizeof loop);
    /* layout: [0]LOAD i [1]LOAD n [2]LT [3]JIF end [4..9] s i i * 7 % [10]ADD [11]STORE s
               [12]LOAD i [13]CONST 1 [14]ADD [15]STORE i [16]JUMP 0 [17]RETURN */
    code[2*3+1] = 17; code[2*16+1] = 0;
    Obj *consts[3] = { int_new(0), int_new(1), int_new(7) };
    int64_t n = argc > 1 ? 3000000 : 3000000;
    double t = now();
    int64_t s = run_vm(code, consts, n);
    double t_vm = now() - t;
    /* word counts: 400,000 keys drawn from 5000*37 distinct strings, d[w] = d.get(w,0)+len(w) */
    static char keys[400000][16]; static int lens[400000];
    for (int i = 0; i < 400000; i++) lens[i] = snprintf(keys[i], 16, "w%dx%d", i % 5000, i % 37);
    t = now();
    Dict *d = dict_new(); int64_t total = 0;
    for (int rep = 0; rep < 4; rep++)
        for (int i = 0; i < 400000; i++) {
            dict_add(d, keys[i], lens[i], lens[i]);
            total += dict_get(d, keys[i], lens[i], 0) & 1;
        }
    double t_dict = now() - t;
    printf("vm %lld dict %zu %lld\nT vm %.4f\nT dict %.4f\n", (long long)s, dict_len(d), (long long)total, t_vm, t_dict);
    return 0;
}
