/* Minimal Cortex-M4F start-up for QEMU's mps2-an386: vector table, FPU on, .data/.bss, main(),
 * and an exit through semihosting so QEMU ends with main's return value as its exit status. */
#include <stdint.h>

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
int main(void);

void semihosting_exit(int code) __attribute__((noreturn));
void Reset_Handler(void) __attribute__((noreturn));
void Fault_Handler(void) __attribute__((noreturn));

__attribute__((section(".vectors"), used))
static const void *const vectors[16] = {
    &_estack,                      /* initial stack pointer: the top of RAM */
    (const void *)Reset_Handler,
    (const void *)Fault_Handler,   /* NMI */
    (const void *)Fault_Handler,   /* HardFault */
    (const void *)Fault_Handler,   /* MemManage */
    (const void *)Fault_Handler,   /* BusFault */
    (const void *)Fault_Handler,   /* UsageFault */
};

void Reset_Handler(void)
{
    /* CP10/CP11 full access before the first float instruction (the kernels use the FPU). */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    uint32_t *src = &_sidata;
    for (uint32_t *dst = &_sdata; dst < &_edata;) {
        *dst++ = *src++;
    }
    for (uint32_t *dst = &_sbss; dst < &_ebss;) {
        *dst++ = 0;
    }
    semihosting_exit(main());
}

void Fault_Handler(void)
{
    semihosting_exit(125);  /* a crash ends QEMU with status 125 instead of hanging */
}

/* SYS_EXIT_EXTENDED (0x20) with {ADP_Stopped_ApplicationExit, code}: QEMU, started with
 * -semihosting-config enable=on, exits with `code`. On a real board, loop here instead. */
void semihosting_exit(int code)
{
    volatile uint32_t block[2] = {0x20026u, (uint32_t)code};
    register uint32_t r0 __asm__("r0") = 0x20u;
    register volatile uint32_t *r1 __asm__("r1") = block;
    __asm__ volatile("bkpt 0xAB" : : "r"(r0), "r"(r1) : "memory");
    for (;;) {
    }
}
