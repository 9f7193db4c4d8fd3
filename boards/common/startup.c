/* Cortex-M start-up shared by every board: vector table, FPU on, .data copy, .bss zero, main. */
#include <stdint.h>
#include "mf_target.h"

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
int main(void);

void Reset_Handler(void);
void Fault_Handler(void);
void Default_Handler(void);
void SysTick_Handler(void) __attribute__((weak, alias("Default_Handler")));

/* Only the 16 system entries: the firmware polls its UART and uses no IRQ. */
__attribute__((section(".vectors"), used))
const void *const mf_vectors[16] = {
    &_estack,
    (const void *)Reset_Handler,
    (const void *)Fault_Handler,   /* NMI */
    (const void *)Fault_Handler,   /* HardFault */
    (const void *)Fault_Handler,   /* MemManage (v7-M+) */
    (const void *)Fault_Handler,   /* BusFault */
    (const void *)Fault_Handler,   /* UsageFault */
    (const void *)Fault_Handler,   /* SecureFault (v8-M) */
    0, 0, 0,
    (const void *)Default_Handler, /* SVCall */
    (const void *)Default_Handler, /* DebugMonitor */
    0,
    (const void *)Default_Handler, /* PendSV */
    (const void *)SysTick_Handler,
};

void Reset_Handler(void)
{
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
    /* CP10/CP11 full access before any FP/MVE instruction, else it HardFaults. */
    MF_REG32(0xE000ED88u) |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    uint32_t *src = &_sidata;
    for (uint32_t *dst = &_sdata; dst < &_edata;) {
        *dst++ = *src++;
    }
    for (uint32_t *dst = &_sbss; dst < &_ebss;) {
        *dst++ = 0;
    }
    mf_exit(main());
}

void Fault_Handler(void)
{
    mf_on_fault();
}

void Default_Handler(void)
{
    for (;;) {
    }
}
