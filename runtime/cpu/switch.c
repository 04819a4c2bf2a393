/*
 * switch.c — the switch from one fiber (or the scheduler) to another, below every file
 * of the executor that runs or parks a fiber (they call it through exec.h's
 * ctx_switch, inlined). On x86-64 without sanitizers it is rt_fiber_switch, a few
 * instructions of assembly (exec.h says what it saves); elsewhere, and under
 * sanitizers, which know about it, swapcontext.
 */
#include "exec.h"

#ifdef RT_ASM_FIBERS
/* global but hidden: the other files of runtime/cpu/ call it, nothing outside */
__asm__(".text\n"
        ".p2align 4\n"
        ".globl rt_fiber_switch\n"
        ".hidden rt_fiber_switch\n"
        ".type rt_fiber_switch, @function\n"
        "rt_fiber_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n"
        "  pushq %r15\n"
        "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size rt_fiber_switch, .-rt_fiber_switch\n");
#else
void rt_fiber_swap(rt_ctx *from, rt_ctx *to) {
#ifdef RT_TSAN
  __tsan_switch_to_fiber(to->tsan, 0);
#endif
  swapcontext(&from->uc, &to->uc);
}
#endif
