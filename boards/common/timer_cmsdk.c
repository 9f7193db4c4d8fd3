/* Arm CMSDK APB timer (32-bit down-counter) as a free-running tick counter; base from -DMF_TIMER_BASE. */
#include "mf_target.h"

#define TIMER_CTRL    (MF_TIMER_BASE + 0x00u)
#define TIMER_VALUE   (MF_TIMER_BASE + 0x04u)
#define TIMER_RELOAD  (MF_TIMER_BASE + 0x08u)
#define CTRL_ENABLE   (1u << 0)

/* SysTick only paces mf_timer_align(): it wakes the CPU at a fixed phase of timer0. */
#define SYST_CSR        0xE000E010u
#define SYST_RVR        0xE000E014u
#define SYST_CVR        0xE000E018u
#define SYST_ENABLE_INT_CPUCLK 0x7u
#define SCB_ICSR        0xE000ED04u
#define ICSR_PENDSTSET  (1u << 26)
#define ALIGN_PERIOD    0xFFFFu

void SysTick_Handler(void)
{
}

void mf_timer_init(void)
{
    MF_REG32(TIMER_CTRL) = 0;
    MF_REG32(TIMER_RELOAD) = 0xFFFFFFFFu;
    MF_REG32(TIMER_VALUE) = 0xFFFFFFFFu;
    MF_REG32(TIMER_CTRL) = CTRL_ENABLE;
    MF_REG32(SYST_RVR) = ALIGN_PERIOD;
    MF_REG32(SYST_CVR) = 0;
    MF_REG32(SYST_CSR) = SYST_ENABLE_INT_CPUCLK;
}

uint32_t mf_timer_ticks(void)
{
    /* Counts down: negate so callers subtract start from end. */
    return 0xFFFFFFFFu - MF_REG32(TIMER_VALUE);
}

/* Sleeps until the next SysTick interrupt: both timers run from the same clock
   and were started at a fixed point of boot, so timer0's phase at wake-up is
   the same every run and, under QEMU -icount sleep=off, so is the count. */
void mf_timer_align(void)
{
    __asm__ volatile("cpsid i" ::: "memory");
    while (!(MF_REG32(SCB_ICSR) & ICSR_PENDSTSET)) {
        __asm__ volatile("wfi");
    }
    __asm__ volatile("cpsie i\n\tisb" ::: "memory");
}
