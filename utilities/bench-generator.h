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

#ifndef BENCH_GENERATOR_H
#define BENCH_GENERATOR_H 1

/* The frame generator thread of ovs-xdp-bench's 'forward' and 'storm'
 * modes.
 *
 * A thread pinned to one CPU inside the generator's namespace runs
 * datapath/bench-gen.bpf.c with BPF_PROG_TEST_RUN and
 * BPF_F_TEST_XDP_LIVE_FRAMES in a loop: the kernel turns each run that
 * returns XDP_TX into a real frame sent out of the namespace's veth end,
 * so that one core offers several million frames a second.  Each call
 * sets up and tears down a page pool and waits for an RCU grace period,
 * which with short calls left the generator's CPU idle half of the time
 * here, so a call is BENCH_GENERATOR_REPEAT frames, many seconds' worth; the
 * thread is stopped by interrupting the call with BENCH_GENERATOR_SIGNAL, whose
 * handler bench_generator_init_signal() installs without SA_RESTART. */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovs-atomic.h"

struct ds;

/* The signal that interrupts the generator's BPF_PROG_TEST_RUN call. */
#define BENCH_GENERATOR_SIGNAL SIGUSR1

/* Frames per BPF_PROG_TEST_RUN call (see above). */
#define BENCH_GENERATOR_REPEAT (1u << 26)

/* A generator.  'stop' is written by the main thread and read by the
 * generator, 'exited' the other way round; 'error' and 'what' are written
 * by the generator and read by the main thread only after joining it. */
struct bench_generator {
    pthread_t thread;           /* Valid while 'running'. */
    bool running;               /* Thread started and not yet joined. */
    atomic_bool stop;           /* Set to ask the thread to end. */
    atomic_bool exited;         /* Set by the thread as it ends. */
    int error;                  /* Positive errno value if it failed. */
    const char *what;           /* What failed, if 'error'. */

    /* Set before starting, constant while it runs. */
    int prog_fd;                /* bench_gen program. */
    const char *ns;             /* Namespace of the generator's veth end. */
    const char *ifname;         /* The end, inside 'ns'. */
    int cpu;                    /* CPU to run on. */
    int nice;                   /* Nice value of the thread, or 0 to leave
                                 * it as it is. */
    unsigned int batch_size;    /* BPF_PROG_TEST_RUN batch size. */
    const uint8_t *frame;       /* The frame to send... */
    size_t frame_size;          /* ...of this many bytes. */
};

void bench_generator_init_signal(void);
void bench_generator_start(struct bench_generator *, const char *thread_name);
int bench_generator_stop(struct bench_generator *, struct ds *why);

#endif /* bench-generator.h */
