/* Lua 5.4 on wasm32-wasi for a speed experiment only: errors abort (no setjmp in plain
   wasm32-wasi), and the few POSIX calls WASI lacks are stubbed. The benchmarks raise no error. */
#include <stdlib.h>
#include <stdio.h>
#include <time.h>
#define _SETJMP_H 1  /* keep wasi-libc's setjmp.h (needs wasm EH) out: errors abort instead */
#define LUAI_THROW(L,c)   abort()
#define LUAI_TRY(L,c,a)   { a }
#define luai_jmpbuf       int
#define system(cmd)       (-1)
#define tmpnam(b)         ((char *)0)
#define tmpfile()         ((void *)0)
#ifndef CLOCKS_PER_SEC
#define CLOCKS_PER_SEC 1000000
#endif
static inline long long lua_wasi_clock(void) {  /* os.clock() as monotonic wall time */
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * CLOCKS_PER_SEC + t.tv_nsec / (1000000000LL / CLOCKS_PER_SEC);
}
#define clock()           lua_wasi_clock()
#define L_tmpnam          32
