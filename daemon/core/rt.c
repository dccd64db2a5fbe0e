/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "log.h"
#include "rt.h"

void rt_process_setup(struct rt_process *rp, bool mlock, bool dma_latency)
{
	rp->dma_fd = -1;
	rp->locked = false;
	rp->warnings = 0;
	if (mlock) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0) {
			rp->locked = true;
		} else {
			log_warn("mlockall: %s; page faults can delay frames (run as root or give "
				 "CAP_IPC_LOCK, "
				 "or raise RLIMIT_MEMLOCK)",
				 strerror(errno));
			rp->warnings++;
		}
	}
	if (dma_latency) {
		int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
		int32_t zero = 0;
		if (fd < 0 || write(fd, &zero, sizeof(zero)) != sizeof(zero)) {
			log_warn("/dev/cpu_dma_latency: %s; deep C-states can delay wake-ups "
				 "(needs root)",
				 strerror(errno));
			rp->warnings++;
			if (fd >= 0)
				close(fd);
		} else {
			rp->dma_fd = fd;
		}
	}
}

void rt_process_release(struct rt_process *rp)
{
	if (rp->dma_fd >= 0)
		close(rp->dma_fd);
	rp->dma_fd = -1;
	if (rp->locked)
		munlockall();
	rp->locked = false;
}

unsigned rt_thread_setup(const char *who, int cpu, int prio)
{
	unsigned w = 0;
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		if (rc) {
			log_warn("%s: cannot pin to CPU %d: %s; it will migrate between CPUs", who,
				 cpu, strerror(rc));
			w++;
		}
	}
	if (prio > 0) {
		struct sched_param sp = {.sched_priority = prio};
		int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
		if (rc) {
			log_warn(
				"%s: SCHED_FIFO %d: %s; it runs SCHED_OTHER and other tasks can "
				"preempt it "
				"(needs root or CAP_SYS_NICE, and an RLIMIT_RTPRIO of at least %d)",
				who, prio, strerror(rc), prio);
			w++;
		}
	}
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) != 0) {
		log_warn("%s: timer slack 1 ns: %s; sleeps may end up to 50 us late", who,
			 strerror(errno));
		w++;
	}
	return w;
}
