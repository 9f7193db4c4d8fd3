/* fake model: every output byte is the matching input byte + 1; all tensors live in a 64-byte arena. */
#include <stdint.h>
#include "fake.h"

static uint8_t arena[FAKE_ARENA_SIZE] __attribute__((aligned(16)));

/* in0 @0 (24), in1 @24 (8), out0 @32 (24), out1 @56 (8) */
void *fake_input(int i)
{
    return i == 0 ? &arena[0] : i == 1 ? &arena[24] : (void *)0;
}

void *fake_output(int i)
{
    return i == 0 ? &arena[32] : i == 1 ? &arena[56] : (void *)0;
}

int fake_invoke(void)
{
    /* Test knob: in1[1] == 0x5A makes invoke spin in1[0] << 16 times, long
       enough to wrap a shortened SysTick, so tests can check wrap counting. */
    if (arena[25] == 0x5Au) {
        for (uint32_t i = 0, n = (uint32_t)arena[24] << 16; i < n; i++) {
            __asm__ volatile("" ::: "memory");
        }
    }
    for (int k = 0; k < 32; k++) {
        arena[32 + k] = (uint8_t)(arena[k] + 1u);
    }
    return 0;
}
