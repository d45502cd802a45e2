// SPDX-License-Identifier: GPL-2.0
/*
 * PostgreSQL's shared memory size (CalculateShmemSize() in ipci.c), term
 * by term for what grows with a setting, one constant for the rest.
 *
 * The per-item costs were measured on Debian's PostgreSQL 15.18 (x86_64)
 * with `postgres -C shared_memory_size`, to 8 kB precision, varying one
 * setting at a time; each agrees with the structures the server sizes:
 *  - a shared buffer: the 8 kB block, its descriptor, I/O condition
 *    variable, checkpoint sort slot and buffer-table entry (164 B), plus
 *    the buffer table's power-of-two bucket array and a slow 1/16 B;
 *  - CLOG and commit-timestamp SLRU buffers, which grow with
 *    shared_buffers up to 512 MB (65 B per buffer);
 *  - WAL buffers: 8 kB plus an 8-byte LSN each; auto is shared_buffers/32
 *    between 64 kB and one 16 MB segment;
 *  - heavyweight locks: max_locks_per_transaction x (backends + prepared
 *    transactions) LOCK entries and twice as many PROCLOCKs (364 B per
 *    slot), each table with power-of-two buckets; predicate locks the
 *    same (214 B per slot);
 *  - per backend or prepared transaction: PGPROC, fast-path locks,
 *    sinval, procarray, backend status (7300 B), plus its
 *    track_activity_query_size buffer;
 *  - replication slots (320 B each), min_dynamic_shared_memory.
 * FIXED_BYTES is the largest remainder seen over the measured points, so
 * the model stays on or above the server.  PostgreSQL 17 made the SLRU
 * caches scale with shared_buffers (transaction_buffers and friends, up
 * to 8 MB each); that is added for 17 and later.
 */
#include "pg_shmem.h"

#define BLCKSZ			8192ULL
#define BUFFER_OVERHEAD		164ULL
#define BUFFER_PARTITIONS	128ULL
#define SLRU_PER_BUFFER		65ULL
#define SLRU_SCALED_BUFFERS	65536ULL	/* SLRUs stop growing: 512 MB */
#define SLRU_MIN_BUFFERS	1024ULL
#define WAL_BLOCK_COST		(BLCKSZ + 8)
#define WAL_AUTO_MIN		8ULL		/* 64 kB */
#define WAL_AUTO_MAX		2048ULL		/* one 16 MB WAL segment */
#define WAL_MIN			4ULL
#define LOCK_SLOT		364ULL
#define PRED_LOCK_SLOT		214ULL
#define PER_BACKEND		7300ULL
#define AUX_STATUS_SLOTS	6ULL		/* auxiliary processes' status */
#define PER_REPLICATION_SLOT	320ULL
#define FIXED_BYTES		1200000ULL
#define PG17_SLRU_MIN		16ULL
#define PG17_SLRU_MAX		1024ULL
#define PG17_FIXED_SLRU_BUFFERS	48ULL		/* multixact, notify, serial */
#define SATURATED		(UINT64_MAX / 4)

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > SATURATED - b ? SATURATED : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	if (a && b > SATURATED / a)
		return SATURATED;
	return a * b;
}

static uint64_t next_pow2(uint64_t n)
{
	uint64_t p = 1;

	while (p < n && p < SATURATED)
		p <<= 1;
	return p;
}

static uint64_t clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* A dynahash table of @entries entries: 8-byte buckets, power of two. */
static uint64_t hash_buckets(uint64_t entries)
{
	return sat_mul(8, next_pow2(entries));
}

static uint64_t lock_table(uint64_t slots, uint64_t per_slot)
{
	uint64_t bytes = sat_mul(slots, per_slot);

	bytes = sat_add(bytes, hash_buckets(slots));
	return sat_add(bytes, hash_buckets(sat_mul(2, slots)));
}

/* The parser keeps every value within PostgreSQL's bounds; be safe anyway. */
static uint64_t count(int64_t v)
{
	return v > 0 ? (uint64_t)v : 0;
}

static uint64_t wal_blocks(const struct pg_shm_settings *s)
{
	if (s->wal_buffers < 0)
		return clamp(count(s->shared_buffers) / 32, WAL_AUTO_MIN,
			     WAL_AUTO_MAX);
	return clamp(count(s->wal_buffers), WAL_MIN, SATURATED);
}

void pg_shm_settings_init(struct pg_shm_settings *s)
{
	s->shared_buffers = 16384;		/* 128MB */
	s->wal_buffers = -1;
	s->max_connections = 100;
	s->autovacuum_max_workers = 3;
	s->max_worker_processes = 8;
	s->max_wal_senders = 10;
	s->max_prepared_transactions = 0;
	s->max_locks_per_transaction = 64;
	s->max_pred_locks_per_transaction = 64;
	s->track_activity_query_size = 1024;
	s->max_replication_slots = 10;
	s->min_dynamic_shared_memory = 0;
}

uint64_t pg_estimate_shm(const struct pg_shm_settings *s, unsigned int version)
{
	uint64_t nbuf = count(s->shared_buffers), backends, procs, bytes;

	/* MaxBackends: connections, autovacuum workers + launcher, workers, senders */
	backends = sat_add(sat_add(count(s->max_connections),
				   count(s->autovacuum_max_workers)),
			   sat_add(1, sat_add(count(s->max_worker_processes),
					      count(s->max_wal_senders))));
	procs = sat_add(backends, count(s->max_prepared_transactions));

	bytes = sat_mul(nbuf, BLCKSZ + BUFFER_OVERHEAD);
	bytes = sat_add(bytes, nbuf / 16);
	bytes = sat_add(bytes, hash_buckets(sat_add(nbuf, BUFFER_PARTITIONS)));
	bytes = sat_add(bytes, SLRU_PER_BUFFER *
			clamp(nbuf, SLRU_MIN_BUFFERS, SLRU_SCALED_BUFFERS));
	bytes = sat_add(bytes, sat_mul(wal_blocks(s), WAL_BLOCK_COST));
	bytes = sat_add(bytes, lock_table(sat_mul(count(s->max_locks_per_transaction),
						  procs), LOCK_SLOT));
	bytes = sat_add(bytes,
			lock_table(sat_mul(count(s->max_pred_locks_per_transaction),
					   procs), PRED_LOCK_SLOT));
	bytes = sat_add(bytes, sat_mul(procs, PER_BACKEND));
	bytes = sat_add(bytes, sat_mul(sat_add(backends, AUX_STATUS_SLOTS),
				       count(s->track_activity_query_size)));
	bytes = sat_add(bytes, sat_mul(count(s->max_replication_slots),
				       PER_REPLICATION_SLOT));
	bytes = sat_add(bytes, sat_mul(count(s->min_dynamic_shared_memory), 1ULL << 20));
	if (version == 0 || version >= 17) {
		uint64_t scaled = clamp(nbuf / 512, PG17_SLRU_MIN,
					PG17_SLRU_MAX);

		bytes = sat_add(bytes, (3 * scaled + PG17_FIXED_SLRU_BUFFERS) *
				WAL_BLOCK_COST);
	}
	bytes = sat_add(bytes, FIXED_BYTES);
	/* The server rounds the segment up to a multiple of 8 kB. */
	return sat_add(bytes, BLCKSZ - bytes % BLCKSZ);
}
