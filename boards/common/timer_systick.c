/* SysTick on the processor clock, 24 bits, extended to 32 by counting wraps in its interrupt. */
#include "mf_target.h"

#define SYST_CSR   0xE000E010u
#define SYST_RVR   0xE000E014u
#define SYST_CVR   0xE000E018u
#define CSR_ENABLE    (1u << 0)
#define CSR_TICKINT   (1u << 1)
#define CSR_CLKSOURCE (1u << 2)
#ifndef MF_SYSTICK_RELOAD
#define MF_SYSTICK_RELOAD 0x00FFFFFFu  /* 24 bits; tests shorten it to reach wraps fast */
#endif
#define RELOAD     MF_SYSTICK_RELOAD
#define SCB_ICSR   0xE000ED04u
#define ICSR_PENDSTSET (1u << 26)

static volatile uint32_t wraps;

void SysTick_Handler(void)
{
    wraps++;
}

void mf_timer_init(void)
{
    MF_REG32(SYST_CSR) = 0;
    MF_REG32(SYST_RVR) = RELOAD;
    MF_REG32(SYST_CVR) = 0;
    MF_REG32(SYST_CSR) = CSR_ENABLE | CSR_TICKINT | CSR_CLKSOURCE;
}

uint32_t mf_timer_ticks(void)
{
    uint32_t hi, lo;
    /* With interrupts masked, a wrap shows as a pending SysTick that the
       handler has not counted yet: count it here and re-read the value. */
    __asm__ volatile("cpsid i" ::: "memory");
    hi = wraps;
    lo = MF_REG32(SYST_CVR);
    if (MF_REG32(SCB_ICSR) & ICSR_PENDSTSET) {
        lo = MF_REG32(SYST_CVR);
        hi++;
    }
    __asm__ volatile("cpsie i" ::: "memory");
    /* A wrap is counted when the value reaches 0, then RELOAD follows:
       0 is the first tick of a period, RELOAD the second, 1 the last. */
    uint32_t offset = lo == 0 ? 0 : (RELOAD + 1u) - lo;
    return hi * (RELOAD + 1u) + offset;
}

/* Sleeps until the next SysTick wrap and returns right after its handler, so
   the count starts at the same phase of the tick every time: under QEMU with
   -icount sleep=off the sleep takes no host time and the count repeats exactly. */
void mf_timer_align(void)
{
    __asm__ volatile("cpsid i" ::: "memory");
    while (!(MF_REG32(SCB_ICSR) & ICSR_PENDSTSET)) {
        __asm__ volatile("wfi");
    }
    __asm__ volatile("cpsie i\n\tisb" ::: "memory");
}
