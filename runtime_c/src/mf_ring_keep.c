/* A cascade ring's kept rows moved down to its start (mf_cascade.h). */
#include "mf_cascade.h"
#include "mf_isa.h"

void mf_ring_keep(void *dst, const void *src, uint32_t bytes)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
#if MF_ASM_LOOPS
    /* 32 bytes at a time through eight registers: an LDM and an STM of 8 cost 9 cycles each on a
     * Cortex-M4, where a word loop pays a load and a store per word. Moving down (dst < src),
     * each block is loaded before it is stored and reaches no unread byte. The register list is
     * fixed (r7, gcc's frame pointer, left out); the pointers live in the others. */
    if ((((uintptr_t)d | (uintptr_t)s | bytes) & 3u) == 0) {
        uint32_t pairs = bytes >> 6, words = (bytes >> 2) & 15u, t;
        __asm__ volatile(
            "cmp %[n], #0\n\t"
            "beq 2f\n\t"
            "1:\n\t" /* two blocks a turn: the loop's branch paid once per 64 bytes */
            "ldmia %[s]!, {r2, r3, r4, r5, r6, r8, r9, r10}\n\t"
            "stmia %[d]!, {r2, r3, r4, r5, r6, r8, r9, r10}\n\t"
            "ldmia %[s]!, {r2, r3, r4, r5, r6, r8, r9, r10}\n\t"
            "stmia %[d]!, {r2, r3, r4, r5, r6, r8, r9, r10}\n\t"
            "subs %[n], %[n], #1\n\t"
            "bne 1b\n\t"
            "2:\n\t"
            "cmp %[w], #0\n\t"
            "beq 4f\n\t"
            "3:\n\t"
            "ldr %[t], [%[s]], #4\n\t"
            "str %[t], [%[d]], #4\n\t"
            "subs %[w], %[w], #1\n\t"
            "bne 3b\n\t"
            "4:\n\t"
            : [d] "+r"(d), [s] "+r"(s), [n] "+r"(pairs), [w] "+r"(words), [t] "=&r"(t)
            :
            : "r2", "r3", "r4", "r5", "r6", "r8", "r9", "r10", "cc", "memory");
        return;
    }
#endif
    while (bytes--) { /* (not memmove: its 250 B would join every cascade's firmware) */
        *d++ = *s++;
        __asm__ volatile(""); /* else gcc makes this loop a memmove call */
    }
}
