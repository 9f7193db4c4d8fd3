/* A fake model whose invoke() crashes, to test the firmware's HardFault path. */
#ifndef FAULT_H
#define FAULT_H

#define FAULT_ARENA_SIZE 16
#define FAULT_INPUTS 1
#define FAULT_OUTPUTS 1
#define FAULT_INPUT0_BYTES 8
#define FAULT_OUTPUT0_BYTES 8

void *fault_input(int i);
void *fault_output(int i);
int fault_invoke(void);

#endif
