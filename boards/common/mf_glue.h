/* The model seen by the harness; mf_glue.c (generated per model) implements it. */
#ifndef MF_GLUE_H
#define MF_GLUE_H

const char *mf_model_name(void);
unsigned mf_model_arena_bytes(void);
int mf_model_inputs(void);
void *mf_model_input(int i);
unsigned mf_model_input_bytes(int i);
int mf_model_outputs(void);
void *mf_model_output(int i);
unsigned mf_model_output_bytes(int i);
int mf_model_invoke(void);    /* 0 = ok */

#endif
