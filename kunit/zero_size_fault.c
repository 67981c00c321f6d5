// SPDX-License-Identifier: GPL-2.0
/*
 * Z6, fault: a read or write through ZERO_SIZE_PTR oopses, naming that
 * address, and a NULL access is not named ZERO_SIZE_PTR (suite
 * zero_size_fault, the last one: an oops taints the kernel).
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/signal.h>
#include <linux/slab.h>

#include "zero_size_test.h"
#include "zsp_protocol.h"

struct fault_job {
	bool write;
	char *at;
	struct completion survived;
};

static int fault_thread(void *arg)
{
	struct fault_job *job = arg;

	if (job->write)
		WRITE_ONCE(*job->at, 1);
	else
		(void)READ_ONCE(*job->at);
	complete(&job->survived);
	return 0;
}

/*
 * Returns whether the thread got past its access. A thread that faulted
 * never completes; it is done once the oops has it dead. Polling for
 * that, rather than sleeping out a fixed timeout, keeps this case short.
 */
static bool wait_fault_thread(struct task_struct *t, struct completion *survived)
{
	unsigned long deadline = jiffies + 3 * HZ;

	while (!completion_done(survived) && !READ_ONCE(t->exit_state) &&
	       time_before(jiffies, deadline))
		msleep(20);
	/* A thread that survived completes before it exits: no false oops. */
	return completion_done(survived);
}

/*
 * The access runs in a thread of its own: the oops kills that thread and
 * the guest lives on. The thread must die of the oops (make_task_dead()
 * exits with SIGKILL or SIGSEGV), not return. The harness checks the
 * rest: exactly one oops in this case, from zsp_fault, naming the address
 * and the access announced below.
 */
static void expect_fault(struct kunit *test, bool write, void *at)
{
	struct fault_job job = { .write = write, .at = at };
	struct task_struct *t;
	bool survived;
	int code;

	init_completion(&job.survived);
	zsp_print_expect_oops(test, write, at);
	t = kthread_create(fault_thread, &job, ZSP_FAULT_COMM);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	get_task_struct(t);
	wake_up_process(t);
	survived = wait_fault_thread(t, &job.survived);
	KUNIT_EXPECT_FALSE_MSG(test, survived, "access at 0x%lx did not fault", (unsigned long)at);
	KUNIT_EXPECT_NE_MSG(test, READ_ONCE(t->exit_state), 0, "the faulting thread lives on");
	code = READ_ONCE(t->exit_code);
	KUNIT_EXPECT_TRUE_MSG(test, code == SIGKILL || code == SIGSEGV,
			      "the faulting thread exited with %d, not by the oops", code);
	put_task_struct(t);
}

static void z6_write_faults(struct kunit *test)
{
	expect_fault(test, true, ZERO_SIZE_PTR);
}

static void z6_read_faults(struct kunit *test)
{
	expect_fault(test, false, ZERO_SIZE_PTR);
}

/*
 * The other direction of a distinct fault: an oops that names
 * ZERO_SIZE_PTR where the pointer was NULL would send its reader after a
 * zero-size allocation that never happened.
 */
static void z6_null_read_not_named(struct kunit *test)
{
	expect_fault(test, false, NULL);
}

/*
 * Only the sentinel's own address is named: a fault one member further
 * into a NULL struct, below 16 or above it, or a member behind the
 * sentinel, cannot be told from the other, and naming the whole low page
 * would call every NULL struct member a zero-size allocation.
 */
static void z6_null_member_below_not_named(struct kunit *test)
{
	expect_fault(test, false, (char *)NULL + 0x8);
}

static void z6_null_member_above_not_named(struct kunit *test)
{
	expect_fault(test, false, (char *)NULL + 0x38);
}

static void z6_sentinel_member_not_named(struct kunit *test)
{
	expect_fault(test, false, (char *)ZERO_SIZE_PTR + 0x8);
}

struct kunit_case zsp_z6_cases[] = {
	KUNIT_CASE(z6_write_faults),
	KUNIT_CASE(z6_read_faults),
	KUNIT_CASE(z6_null_read_not_named),
	KUNIT_CASE(z6_null_member_below_not_named),
	KUNIT_CASE(z6_null_member_above_not_named),
	KUNIT_CASE(z6_sentinel_member_not_named),
	{}
};
