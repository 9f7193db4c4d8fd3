/* mf_exit: semihosting SYS_EXIT_EXTENDED under QEMU, or a parked CPU on a real board. */
#include "mf_target.h"

#ifdef MF_SEMIHOSTING
/* Block for SYS_EXIT_EXTENDED (0x20): ADP_Stopped_ApplicationExit, code.
   QEMU started with -semihosting-config enable=on exits with `code`. */
void mf_exit(int code)
{
    volatile uint32_t block[2] = {0x20026u, (uint32_t)code};
    register uint32_t r0 __asm__("r0") = 0x20u;
    register volatile uint32_t *r1 __asm__("r1") = block;
    __asm__ volatile("bkpt 0xAB" : : "r"(r0), "r"(r1) : "memory");
    for (;;) {
    }
}
#else
/* No debugger attached: a BKPT would fault again, so stop here; the host
   sees the fault frame the harness sent before calling this, or a timeout. */
void mf_exit(int code)
{
    (void)code;
    __asm__ volatile("cpsid i");
    for (;;) {
        __asm__ volatile("wfi");
    }
}
#endif
