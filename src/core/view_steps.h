/*
 * view_steps.h - the steps of a pass (view.c, gq_view_compute), for the
 * benchmark's clock per step.  Not for the plugins.
 */
#ifndef GPUQUOTA_VIEW_STEPS_H
#define GPUQUOTA_VIEW_STEPS_H

/*
 * Built with -DGQ_PASS_STEPS (the benchmark only, tests/bench): the
 * thread CPU time of each step of the last gq_view_compute, in seconds,
 * so that `make bench` says where a pass' time goes.
 */
enum {
	GQ_STEP_START,		/* group the jobs by project, start them */
	GQ_STEP_DEMAND,		/* queues sorted, pending demand */
	GQ_STEP_SHARE,		/* fair shares */
	GQ_STEP_WALK,		/* bands, priorities, holds */
	GQ_STEP_RECLAIM,	/* floors, reclaim order, candidates */
	GQ_STEP_ROOM,		/* room-making */
	GQ_NSTEPS
};
#ifdef GQ_PASS_STEPS
extern double gq_pass_steps[GQ_NSTEPS];
#endif

#endif
