/*
 * Copyright (c) 2026 The ovs-xdp authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

/* The frame generator thread: see bench-generator.h. */

#include <config.h>

#include "utilities/bench-generator.h"

#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "openvswitch/dynamic-string.h"
#include "ovs-thread.h"
#include "signals.h"
#include "util.h"
#include "utilities/bench-common.h"

/* Does nothing: BENCH_GENERATOR_SIGNAL is only there to interrupt a system
 * call. */
static void
bench_generator_signal_handler(int sig OVS_UNUSED)
{
}

/* Installs the handler of BENCH_GENERATOR_SIGNAL, before any thread starts. */
void
bench_generator_init_signal(void)
{
    struct sigaction sa;

    /* No SA_RESTART: the signal must end the generator's system call. */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = bench_generator_signal_handler;
    sigemptyset(&sa.sa_mask);
    xsigaction(BENCH_GENERATOR_SIGNAL, &sa, NULL);
}

static void
bench_generator_run(struct bench_generator *gen)
{
    unsigned int ifindex;
    sigset_t signals;
    cpu_set_t cpus;
    int saved_fd;

    /* Signals are the main thread's business, except the one that ends a
     * BPF_PROG_TEST_RUN call early. */
    sigfillset(&signals);
    sigdelset(&signals, BENCH_GENERATOR_SIGNAL);
    pthread_sigmask(SIG_SETMASK, &signals, NULL);

    if (gen->nice) {
        /* Best effort. */
        setpriority(PRIO_PROCESS, syscall(SYS_gettid), gen->nice);
    }
    CPU_ZERO(&cpus);
    CPU_SET(gen->cpu, &cpus);
    if (sched_setaffinity(0, sizeof cpus, &cpus)) {
        gen->error = errno;
        gen->what = "cannot pin the generator to its CPU";
        return;
    }

    /* Stays in the namespace: the thread ends with the run. */
    gen->error = bench_netns_enter(gen->ns, &saved_fd);
    if (gen->error) {
        gen->what = "cannot enter the generator's namespace";
        return;
    }
    if (saved_fd >= 0) {
        close(saved_fd);
    }
    ifindex = if_nametoindex(gen->ifname);
    if (!ifindex) {
        gen->error = errno;
        gen->what = "generator's veth end";
        return;
    }

    struct xdp_md ctx = {
        .data_end = gen->frame_size,
        .ingress_ifindex = ifindex,
    };
    LIBBPF_OPTS(bpf_test_run_opts, opts,
                .data_in = gen->frame,
                .data_size_in = gen->frame_size,
                .ctx_in = &ctx,
                .ctx_size_in = sizeof ctx,
                .repeat = BENCH_GENERATOR_REPEAT,
                .flags = BPF_F_TEST_XDP_LIVE_FRAMES,
                .batch_size = gen->batch_size);
    for (;;) {
        bool stop;
        int error;

        atomic_read_relaxed(&gen->stop, &stop);
        if (stop) {
            break;
        }
        error = bpf_prog_test_run_opts(gen->prog_fd, &opts);
        if (error && error != -EINTR) {
            gen->error = -error;
            gen->what = "BPF_PROG_TEST_RUN with live frames";
            break;
        }
    }
}

static void *
bench_generator_main(void *gen_)
{
    struct bench_generator *gen = gen_;

    bench_generator_run(gen);
    atomic_store_relaxed(&gen->exited, true);
    return NULL;
}

/* Starts the thread of 'gen', whose settings the caller filled in. */
void
bench_generator_start(struct bench_generator *gen, const char *thread_name)
{
    gen->error = 0;
    gen->what = NULL;
    atomic_store_relaxed(&gen->stop, false);
    atomic_store_relaxed(&gen->exited, false);
    gen->thread = ovs_thread_create(thread_name, bench_generator_main, gen);
    gen->running = true;
}

/* Stops the generator, if it runs.  Returns 0 if it ran without error,
 * otherwise a positive errno value after explaining in 'why', if 'why' is
 * nonnull. */
int
bench_generator_stop(struct bench_generator *gen, struct ds *why)
{
    if (!gen->running) {
        return 0;
    }
    /* The signal may come just before the thread enters the kernel, so
     * send it until the thread is gone. */
    atomic_store_relaxed(&gen->stop, true);
    for (;;) {
        struct timespec ts = { .tv_nsec = 10 * 1000 * 1000 };
        bool exited;

        atomic_read_relaxed(&gen->exited, &exited);
        if (exited) {
            break;
        }
        pthread_kill(gen->thread, BENCH_GENERATOR_SIGNAL);
        nanosleep(&ts, NULL);
    }
    xpthread_join(gen->thread, NULL);
    gen->running = false;
    if (gen->error && why) {
        ds_put_format(why, "generator: %s (%s)", gen->what,
                      ovs_strerror(gen->error));
    }
    return gen->error;
}
