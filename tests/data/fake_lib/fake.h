/* A hand-made stand-in for a compiled model, with the emitted library's API. */
#ifndef FAKE_H
#define FAKE_H

#define FAKE_ARENA_SIZE 64
#define FAKE_INPUTS 2
#define FAKE_OUTPUTS 2
#define FAKE_INPUT0_BYTES 24
#define FAKE_INPUT1_BYTES 8
#define FAKE_OUTPUT0_BYTES 24
#define FAKE_OUTPUT1_BYTES 8

void *fake_input(int i);
void *fake_output(int i);
int fake_invoke(void);

#endif
