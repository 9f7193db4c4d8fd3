/* fault model: invoke() reads through an invalid pointer, which must end in the HardFault handler. */
#include <stdint.h>
#include "fault.h"

static uint8_t arena[FAULT_ARENA_SIZE];

void *fault_input(int i)
{
    return i == 0 ? &arena[0] : (void *)0;
}

void *fault_output(int i)
{
    return i == 0 ? &arena[8] : (void *)0;
}

int fault_invoke(void)
{
    /* 0xFFFFFFF0 is unmapped on every board; the volatile keeps the read. */
    volatile uint32_t *bad = (volatile uint32_t *)(uintptr_t)0xE0100000u;
    arena[8] = (uint8_t)*bad;
    return 0;
}
