/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PostgreSQL's shared memory size, modelled from the settings that drive
 * it, so the huge pages a cluster needs can be predicted without a server.
 */
#ifndef PREEMPT_POLICY_PG_SHMEM_H
#define PREEMPT_POLICY_PG_SHMEM_H

#include <stdint.h>

/*
 * The settings, in the units the server keeps them in.  All int64_t, as
 * the parser fills them from one table; only wal_buffers may be negative.
 */
struct pg_shm_settings {
	int64_t shared_buffers;			/* 8 kB blocks */
	int64_t wal_buffers;			/* 8 kB blocks, -1 = auto */
	int64_t max_connections;
	int64_t autovacuum_max_workers;
	int64_t max_worker_processes;
	int64_t max_wal_senders;
	int64_t max_prepared_transactions;
	int64_t max_locks_per_transaction;
	int64_t max_pred_locks_per_transaction;
	int64_t track_activity_query_size;	/* bytes */
	int64_t max_replication_slots;
	int64_t min_dynamic_shared_memory;	/* MB */
};

/* PostgreSQL's defaults (13 to 17 agree on all of these). */
void pg_shm_settings_init(struct pg_shm_settings *s);

/*
 * Bytes of the main shared memory segment of a cluster of major @version
 * (0 = unknown: sized as the newest modelled, the largest).  Never below
 * what PostgreSQL 15 reports as shared_memory_size, at most a few hundred
 * kB above it (checked against the real server by
 * tests/suites/14-policy-pg-shmem.sh).  Saturates instead of overflowing.
 */
uint64_t pg_estimate_shm(const struct pg_shm_settings *s, unsigned int version);

#endif
