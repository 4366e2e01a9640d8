/* See LICENSE file for copyright and license details. */
/*
 * ltproto.h: the private modules of ltproto, which writes an lt1 stream
 * as a Perfetto trace (protobuf, the schema of ../shared/spec/perfetto-
 * protos/): interned strings (intern.c), process, thread and counter
 * tracks (tracks.c), args as debug annotations (args.c), the window
 * that orders events of equal time and writes the output (window.c),
 * the slices no other encloses yet (roots.c) and, packed, those of
 * tracks left alone (common/cold.c), and the mapping of each record to trace
 * packets (event.c).
 */
#ifndef LT_LTPROTO_H
#define LT_LTPROTO_H

#include "lt.h"
#include "bytes.h"
#include "pb.h"
#include "cold.h"

/* Field numbers of Perfetto's schema, by message. */
enum {
	TRACE_PACKET = 1,		/* Trace */

	PKT_CLOCK_SNAPSHOT = 6,		/* TracePacket */
	PKT_TIMESTAMP = 8,
	PKT_SEQ_ID = 10,
	PKT_TRACK_EVENT = 11,
	PKT_INTERNED = 12,
	PKT_FLAGS = 13,
	PKT_CLOCK_ID = 58,
	PKT_DEFAULTS = 59,		/* TracePacketDefaults: the same */
	PKT_TRACK_DESC = 60,
	PKT_FIRST_ON_SEQ = 87,

	CS_CLOCK = 1,			/* ClockSnapshot */
	CLK_ID = 1,			/* ClockSnapshot.Clock */
	CLK_TIMESTAMP = 2,
	CLK_INCREMENTAL = 3,

	EV_CATEGORY_IIDS = 3,		/* TrackEvent */
	EV_ANNOTATION = 4,
	EV_LEGACY = 6,
	EV_TYPE = 9,
	EV_NAME_IID = 10,
	EV_TRACK_UUID = 11,
	EV_COUNTER_VALUE = 30,
	EV_DOUBLE_VALUE = 44,

	LEG_PHASE = 2,			/* TrackEvent.LegacyEvent */
	LEG_UNSCOPED_ID = 6,
	LEG_ID_SCOPE = 7,
	LEG_BIND_ID = 8,
	LEG_LOCAL_ID = 10,
	LEG_GLOBAL_ID = 11,
	LEG_BIND_ENCLOSING = 12,
	LEG_FLOW_DIRECTION = 13,
	LEG_INSTANT_SCOPE = 14,

	DA_NAME_IID = 1,		/* DebugAnnotation */
	DA_BOOL = 2,
	DA_UINT = 3,
	DA_INT = 4,
	DA_DOUBLE = 5,
	DA_STRING = 6,
	DA_LEGACY_JSON = 9,
	DA_DICT = 11,
	DA_ARRAY = 12,
	DA_STRING_IID = 17,

	IN_CATEGORIES = 1,		/* InternedData */
	IN_NAMES = 2,
	IN_ANNOTATION_NAMES = 3,
	IN_STRING_VALUES = 29,
	IN_IID = 1,			/* EventName and the others */
	IN_NAME = 2,

	TD_UUID = 1,			/* TrackDescriptor */
	TD_NAME = 2,
	TD_PROCESS = 3,
	TD_THREAD = 4,
	TD_PARENT = 5,
	TD_COUNTER = 8,
	TD_RANK = 12,
	TD_MERGE = 15,
	TD_PROCESS_ORDER = 19,
	TD_THREAD_ORDER = 20,

	PD_PID = 1,			/* ProcessDescriptor */
	PD_NAME = 6,
	THD_PID = 1,			/* ThreadDescriptor */
	THD_TID = 2,
	THD_NAME = 5
};

/* TrackEvent.Type, sequence flags, flow directions, instant scopes. */
enum {
	TYPE_SLICE_BEGIN = 1,
	TYPE_SLICE_END = 2,
	TYPE_INSTANT = 3,
	TYPE_COUNTER = 4
};
#define SEQ_CLEARED	1
#define SEQ_NEEDS_STATE	2
#define SEQ_COMMON	1	/* an empty trace's; threads, counters: 2 on */
#define CLOCK_BOOTTIME	6
#define CLOCK_DELTA	64	/* a sequence's own clock, incremental */
#define CLOCK_FROM	65	/* another: the time since base */
#define FLOW_IN		1
#define FLOW_OUT	2
#define SCOPE_GLOBAL	1
#define SCOPE_PROCESS	2

/* intern.c: one table of strings per kind of interned data. */
enum {
	PT_NAMES,		/* event names */
	PT_CATS,		/* categories */
	PT_ANNOS,		/* debug annotation names */
	PT_VALUES,		/* debug annotation string values */
	PT_NTAB
};

void	pt_intern_init(size_t);
void	pt_seq_use(uint32_t, uint64_t);
uint64_t pt_seq_track(void);
uint32_t pt_seq_cur(void);
uint64_t pt_intern_gen(void);
void	pt_seq_fields(struct ltbuf *, int);
uint64_t pt_iid(int, const char *, size_t);
uint64_t pt_hash(const char *, size_t);
int	pt_intern_due(void);
void	pt_intern_reset(void);
void	pt_intern_put(void);
void	pt_intern_free(void);

/* tracks.c: processes and threads, by pid and tid as Perfetto reads them. */
struct ptthread {
	uint64_t	 uuid;
	uint32_t	 seq;		/* its packet sequence, 0: its process's */
	uint32_t	 tid;		/* the number written; see tracks.c */
	uint32_t	 proc;		/* index of its process */
	uint32_t	 name;		/* tracks.c's names: index + 1, or 0 */
	int32_t		 rank;
	unsigned	 events : 8;	/* written on its process's */
	unsigned	 hasrank : 1;
	unsigned	 strname : 1;	/* named after its string tid */
};

uint32_t pt_process(const struct ltfield *, const struct ltfield *);
struct ptthread *pt_thread(const struct ltfield *, const struct ltfield *,
	    const struct ltfield *);
uint64_t pt_counter(uint32_t, const char *, size_t, uint32_t *);
uint64_t pt_spill(const struct ptthread *);
uint32_t pt_thread_seq(struct ptthread *);
void	pt_process_name(uint32_t, const char *, size_t);
void	pt_thread_name(struct ptthread *, const char *, size_t);
void	pt_process_rank(uint32_t, int32_t);
void	pt_thread_rank(struct ptthread *, int32_t);
void	pt_tracks_finish(void);
void	pt_tracks_free(void);

/* args.c: JSON values as debug annotations, and ids as Perfetto reads them. */
/*
 * A set of packet sequences, a bit each: those on which the strings a
 * cache keeps are defined (in the generation it knows), so that it calls
 * pt_iid() for none of them there.  A long job has thousands.
 */
struct ptseqs {
	uint64_t	 low;		/* sequences 0 to 63 */
	uint64_t	*more;		/* s from 64: word s / 64 - 1 */
	size_t		 words, made;
};

static inline int
pt_seqs_has(const struct ptseqs *s, uint32_t seq)
{
	if (seq < 64)
		return (int)(s->low >> seq & 1);
	return seq / 64 - 1 < s->made &&
	    (int)(s->more[seq / 64 - 1] >> (seq % 64) & 1);
}

void	pt_seqs_add(struct ptseqs *, uint32_t);
void	pt_seqs_clear(struct ptseqs *);
void	pt_seqs_free(struct ptseqs *);
int	pt_args(struct ltbuf *, const char *, size_t, uint64_t);
void	pt_args_json(struct ltbuf *, const struct ltfield *);
int	pt_id(const char *, size_t, uint64_t *);
int	pt_number(const char *, size_t, double *);
const char *pt_str(struct ltbuf *, const char *, size_t, size_t *);
void	pt_args_free(void);

/* window.c: the output, and the order of events of one time. */
enum {
	PT_KE,			/* the end of a B slice (E) */
	PT_KXEND,		/* the end of an X slice */
	PT_KXBEGIN,		/* the start of an X slice; key: -dur */
	PT_KPUSH,		/* B, instants, X of no duration: slices on */
				/*   the thread's track */
	PT_KOTHER,		/* async events, scoped instants, flow */
				/*   ends bound to the next slice */
	PT_KFLOW,		/* flow events bound to the slice around */
	PT_KDEAD		/* held, then not to be written */
};

/* A packet held, and its place among those of its time. */
struct ptitem {
	uint64_t	 seq;		/* arrival */
	int64_t		 key;		/* -dur of an X begin */
	uint32_t	 track;
	uint8_t		 kind;
	uint8_t		 rank;
	uint8_t		 sub;
	uint64_t	 pos;
	size_t		 off;		/* bytes, in its holder's buffer */
	uint32_t	 len;
};

void	pt_out_open(int, const char *, size_t);
void	pt_put(const char *, size_t);
void	pt_put_at(int64_t, uint32_t, int, const char *, size_t);
void	pt_out_restart(uint32_t);
void	pt_out_base(int64_t);
int64_t	pt_out_t0(void);
void	pt_out_drain(uint32_t);
void	pt_out_sweep(void);
/* A packet held in the window: its place there. */
struct pthandle {
	uint64_t	 pos;
	uint64_t	 order;
};

void	pt_hold(int64_t, uint32_t, int, int64_t, const char *, size_t,
	    struct pthandle *);
int	pt_unhold(const struct pthandle *);
void	pt_order(struct ptitem *, size_t);
void	pt_rehold(int64_t, const struct ptitem *, const char *);
void	pt_take(int64_t, uint32_t, struct ltbuf *, struct ltbuf *);
void	pt_flush(void);
void	pt_out_close(void);

/*
 * roots.c: slices of a track that nothing read so far encloses, with
 * the packets of their start held until a slice that starts earlier
 * encloses them (or one that starts with them, which goes first).
 */
void	pt_roots_hold(uint32_t, int64_t, int64_t, const struct ptitem *,
	    const char *);
int	pt_roots_keep(uint32_t, int64_t, const struct ptitem *, size_t,
	    const char *);
int	pt_roots_cross(uint32_t, int64_t, int64_t);
void	pt_roots_gone(uint32_t, int64_t);
void	pt_roots_budget(size_t);
void	pt_roots_flush(void);
void	pt_roots_sweep(void);
void	pt_roots_free(void);
long long pt_roots_lost(void);

/*
 * common/cold.c keeps what is left alone: the stacks of tracks, by
 * track uuid (PT_COLDSTACK), and the X ends sequences hold, by sequence
 * id (PT_COLDEND).
 */
enum { PT_COLDSTACK, PT_COLDEND };

/* event.c: records to packets. */
struct ltrd;
struct ltrec;
void	pt_record(struct ltrd *, struct ltrec *);
void	pt_t0(const char *, size_t);
void	pt_event_free(void);
struct ptcount {
	long long	 unsupported;	/* phases Perfetto drops from JSON */
	long long	 nots;		/* no ts, or no dur for X */
	long long	 negative;	/* ts before 0, or ts + dur past 2^63-1 */
	long long	 negdur;	/* X with dur below 0 */
	long long	 badid;		/* flows and async events with ids */
					/*   Perfetto cannot read */
	long long	 badcounter;	/* counter values not numbers */
	long long	 spilled;	/* X slices on tracks of their own */
	long long	 unbound;	/* flow ends before their start, */
					/*   at its time: not written */
};
extern struct ptcount pt_count;
extern int	pt_tallying;	/* the summary's counters are kept (-S) */

#endif
