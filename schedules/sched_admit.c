/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Admission control: in every frame, on every port, the reserved packets'
 * serialization at the link rate, per-packet overhead included, must end by
 * TF minus the guard band. Works on the distinct rows, so the cost is
 * O(distinct entries + k), not O(k x entries).
 *
 * sched_fit: the same rows against what the box holds in one frame (packet
 * buffers, flow queues, TX descriptors), which the wire does not bound.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sched_priv.h"

uint64_t sched_wire_bits(const struct sched_table *t, uint32_t flow)
{
	const struct sched_flow *f = &t->flows[flow];
	uint32_t sz = f->size < SCHED_MIN_FRAME ? SCHED_MIN_FRAME : f->size;
	return ((uint64_t)sz + t->ports[f->port].overhead) * 8;
}

uint64_t sched_port_capacity_bits(const struct sched_table *t, uint32_t port)
{
	sched_u128 v = (sched_u128)(t->tf_ns - t->guard_ns) * t->ports[port].rate_bps;
	v /= SCHED_NS_PER_S;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* The entries of a row are sorted by port: the run from i on that shares
 * entry i's port, its reserved bits in *bits. Returns where the next run starts.
 * Walking a row this way costs its entries, not the table's ports. */
static uint32_t port_run(const struct sched_table *t, uint32_t i, uint32_t end, uint64_t *bits)
{
	uint32_t p = t->flows[t->ent[i].flow].port;
	*bits = 0;
	for (; i < end && t->flows[t->ent[i].flow].port == p; i++)
		*bits += sched_wire_bits(t, t->ent[i].flow) * t->ent[i].n;
	return i;
}

static double bits_ns(uint64_t bits, uint64_t rate)
{
	return (double)bits * 1e9 / (double)rate;
}

/* The last row line that puts a flow of this port into frame f. */
static uint32_t blame_line(const struct sched_table *t, uint32_t f, uint32_t port,
			   struct sched_diags *d)
{
	uint32_t line = 0;
	for (uint32_t r = 0; r < t->nrules; r++) {
		const struct sched_rule *ru = &t->rules[r];
		bool in = false, on_port = false;
		d->work += ru->nspan + ru->nent;
		for (uint32_t s = 0; s < ru->nspan && !in; s++) {
			const struct sched_span *sp = &t->spans[ru->span_off + s];
			in = f >= sp->first && f <= sp->last && (f - sp->first) % sp->stride == 0;
		}
		for (uint32_t e = 0; e < ru->nent && in && !on_port; e++)
			on_port = t->flows[t->rule_ent[ru->ent_off + e].flow].port == port &&
				  t->rule_ent[ru->ent_off + e].n;
		if (in && on_port)
			line = ru->line;
	}
	return line;
}

/* The frames of each distinct row: row r's are at[off[r] .. off[r + 1]),
 * ascending. Built once in O(k + rows), so that a message per row does not
 * scan the k frames again. */
struct row_ix {
	uint32_t *off, *at;
};

static int row_ix_build(const struct sched_table *t, struct row_ix *x)
{
	x->off = calloc((size_t)t->nrows + 2, sizeof(uint32_t));
	x->at = malloc(sizeof(uint32_t) * ((size_t)t->k + 1));
	if (!x->off || !x->at) {
		free(x->off);
		free(x->at);
		x->off = x->at = NULL;
		return -1;
	}
	for (uint32_t f = 0; f < t->k; f++)
		x->off[t->frame_row[f] + 2]++;
	for (uint32_t i = 2; i < t->nrows + 2; i++)
		x->off[i] += x->off[i - 1];
	for (uint32_t f = 0; f < t->k; f++)
		x->at[x->off[t->frame_row[f] + 1]++] = f;
	return 0;
}

static void row_ix_free(struct row_ix *x)
{
	free(x->off);
	free(x->at);
}

/* Row r's frames written into b as a frame set (at most 64 of them); returns
 * how many there are, and the first in *first. */
static size_t row_frames(const struct row_ix *x, uint32_t r, struct sched_buf *b, uint32_t *first)
{
	const uint32_t *frames = x->at + x->off[r];
	size_t nf = x->off[r + 1] - x->off[r];
	sched_buf_frames(b, frames, nf > 64 ? 64 : nf);
	if (nf > 64)
		sched_buf_printf(b, ",...");
	*first = nf ? frames[0] : 0;
	return nf;
}

size_t sched_admit(const struct sched_table *t, struct sched_diags *d)
{
	size_t errs = 0;
	struct row_ix ix = {NULL, NULL};

	for (uint32_t r = 0; r < t->nrows; r++)
		for (uint32_t i = t->row_off[r], next; i < t->row_off[r + 1]; i = next) {
			uint64_t used;
			uint32_t p = t->flows[t->ent[i].flow].port;
			next = port_run(t, i, t->row_off[r + 1], &used);
			uint64_t cap = sched_port_capacity_bits(t, p);
			if (used <= cap)
				continue;
			errs++;
			if (sched_diag_full(d)) { /* counted, not composed */
				sched_diag_add(d, SCHED_ERROR, 0, 0, "overbooked");
				continue;
			}
			const struct sched_port *pt = &t->ports[p];
			if (!ix.off && row_ix_build(t, &ix) != 0)
				goto oom;
			struct sched_buf b = {0};
			uint32_t first;
			size_t nf = row_frames(&ix, r, &b, &first);
			sched_buf_printf(&b,
					 " (%zu frame%s): port %s overbooked by %.3fus: %.3fus of "
					 "%.3fus reserved (TF - guard) by",
					 nf, nf == 1 ? "" : "s", pt->name,
					 bits_ns(used - cap, pt->rate_bps) / 1e3,
					 bits_ns(used, pt->rate_bps) / 1e3,
					 (double)(t->tf_ns - t->guard_ns) / 1e3);
			for (uint32_t j = i; j < next; j++) {
				const struct sched_entry *e = &t->ent[j];
				sched_buf_printf(
					&b, " %s %u x %llu B%s", t->flows[e->flow].name, e->n,
					(unsigned long long)sched_wire_bits(t, e->flow) / 8,
					j + 1 < next ? "," : "");
			}
			sched_diag_add(d, SCHED_ERROR, blame_line(t, first, p, d), 1, "frame%s %s",
				       nf == 1 ? "" : "s", b.s ? b.s : "");
			free(b.s);
		}
	row_ix_free(&ix);
	return errs;
oom:
	sched_diag_add(d, SCHED_ERROR, 0, 0, "out of memory");
	return errs + 1;
}

/* a reserved flow larger than its port's frames can be: never fragmented */
static size_t fit_mtu(const struct sched_table *t, const struct sched_fit *lim,
		      struct sched_diags *d)
{
	size_t errs = 0;
	for (uint32_t f = 0; lim->mtu && f < t->nflows; f++) {
		const struct sched_flow *fl = &t->flows[f];
		uint32_t mtu = lim->mtu[fl->port];
		uint32_t l2 = 14 + ((fl->match.fields & (SCHED_M_VLAN | SCHED_M_PCP)) ? 4 : 0) +
			      ((fl->match.fields & SCHED_M_MPLS) ? 4 : 0);
		if (!mtu || fl->size <= mtu + l2)
			continue;
		errs++;
		sched_diag_add(d, SCHED_ERROR, fl->line, 1,
			       "flow %s: size %u bytes, but port %s sends frames of at most %u "
			       "bytes (MTU %u and a %u-byte "
			       "link header): a reserved packet is never fragmented; lower the "
			       "size or raise the "
			       "interface's MTU",
			       fl->name, fl->size, t->ports[fl->port].name, mtu + l2, mtu, l2);
	}
	return errs;
}

/* What one row is checked with: the table's frames by row (built when a
 * diagnostic first names them), each port's packets in the row. */
struct fit_row {
	const struct sched_table *t;
	const struct sched_fit *lim;
	struct sched_diags *d;
	struct row_ix ix;
	uint64_t *pk;
	size_t errs;
};

/* the row's frames as text (b) and the first of them; -1 out of memory */
static int fit_frames(struct fit_row *fr, uint32_t r, struct sched_buf *b, uint32_t *first,
		      size_t *nf)
{
	if (!fr->ix.off && row_ix_build(fr->t, &fr->ix) != 0)
		return -1;
	*nf = row_frames(&fr->ix, r, b, first);
	return 0;
}

/* A finding of row r: once the diagnostics are full, counted under key;
 * else said at the line of the frames' rule for port p, as "frames F: " and
 * the message. 0, or -1 out of memory. */
__attribute__((format(printf, 6, 7))) static int fit_say(struct fit_row *fr, uint32_t r,
							 enum sched_sev sev, uint32_t p,
							 const char *key, const char *fmt, ...)
{
	if (sched_diag_full(fr->d)) {
		sched_diag_add(fr->d, sev, 0, 0, "%s", key);
		return 0;
	}
	struct sched_buf b = {0};
	uint32_t first;
	size_t nf;
	if (fit_frames(fr, r, &b, &first, &nf))
		return -1;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sched_diag_add(fr->d, sev, blame_line(fr->t, first, p, fr->d), 1, "frame%s %s: %s",
		       nf == 1 ? "" : "s", b.s ? b.s : "", msg);
	free(b.s);
	return 0;
}

/* each entry of row r within a flow's queue; the port counts and *all summed */
static int fit_depth(struct fit_row *fr, uint32_t r, uint64_t *all)
{
	const struct sched_table *t = fr->t;
	for (uint32_t i = t->row_off[r]; i < t->row_off[r + 1]; i++) {
		const struct sched_entry *e = &t->ent[i];
		uint32_t p = t->flows[e->flow].port;
		fr->pk[p] += e->n;
		*all += e->n;
		if (!fr->lim->flow_depth || e->n <= fr->lim->flow_depth)
			continue;
		fr->errs++;
		if (fit_say(fr, r, SCHED_ERROR, p, "flow-queue-depth",
			    "flow %s sends %u packets a frame, but a flow's queue holds %u "
			    "(flow-queue-depth)",
			    t->flows[e->flow].name, e->n, fr->lim->flow_depth))
			return -1;
	}
	return 0;
}

/* all of row r's packets within the packet buffers the ports leave */
static int fit_mbufs(struct fit_row *fr, uint32_t r, uint64_t all)
{
	const struct sched_table *t = fr->t;
	const struct sched_fit *lim = fr->lim;
	uint64_t avail = lim->mbufs > lim->mbufs_held ? lim->mbufs - lim->mbufs_held : 0;
	if (!lim->mbufs || all <= avail)
		return 0;
	fr->errs++;
	uint32_t p0 = t->flows[t->ent[t->row_off[r]].flow].port; /* all > 0: the row has entries */
	return fit_say(fr, r, SCHED_ERROR, p0, "mbufs",
		       "%llu packets a frame on all ports need as many packet buffers, but the "
		       "pool has %llu and the ports' RX and TX rings and caches hold %llu of "
		       "them (mbufs)",
		       (unsigned long long)all, (unsigned long long)lim->mbufs,
		       (unsigned long long)lim->mbufs_held);
}

/* Each port of row r once (entries are sorted by port), its count cleared
 * behind it: O(entries), not O(ports), per row; a warning where the TX ring
 * holds fewer than the port sends in the frame. */
static int fit_txd(struct fit_row *fr, uint32_t r)
{
	const struct sched_table *t = fr->t;
	for (uint32_t i = t->row_off[r]; i < t->row_off[r + 1]; i++) {
		uint32_t p = t->flows[t->ent[i].flow].port;
		uint64_t n = fr->pk[p];
		fr->pk[p] = 0;
		uint32_t txd = fr->lim->tx_desc ? fr->lim->tx_desc[p] : 0;
		if (!txd || n <= txd)
			continue;
		/* the ring refills as the port sends: about the wire time of what
		 * does not fit at once, spent handing packets over */
		uint64_t bits = 0;
		for (uint32_t k = t->row_off[r]; k < t->row_off[r + 1]; k++)
			if (t->flows[t->ent[k].flow].port == p)
				bits += sched_wire_bits(t, t->ent[k].flow) * t->ent[k].n;
		double refill_us =
			bits_ns(bits, t->ports[p].rate_bps) * (double)(n - txd) / (double)n / 1e3;
		if (fit_say(fr, r, SCHED_WARNING, p, "tx-desc",
			    "port %s sends %llu packets a frame, its TX ring holds %u (tx-desc): "
			    "the "
			    "engine refills the ring as the port sends, for about %.1fus of the "
			    "frame",
			    t->ports[p].name, (unsigned long long)n, txd, refill_us))
			return -1;
	}
	return 0;
}

size_t sched_fit(const struct sched_table *t, const struct sched_fit *lim, struct sched_diags *d)
{
	struct fit_row fr = {.t = t, .lim = lim, .d = d, .ix = {NULL, NULL}};
	fr.pk = calloc((size_t)t->nports + 1, sizeof(uint64_t));
	if (!fr.pk) {
		sched_diag_add(d, SCHED_ERROR, 0, 0, "out of memory");
		return 1;
	}
	fr.errs = fit_mtu(t, lim, d);
	int oom = 0;
	for (uint32_t r = 0; r < t->nrows && !oom; r++) {
		uint64_t all = 0;
		oom = fit_depth(&fr, r, &all) || fit_mbufs(&fr, r, all) || fit_txd(&fr, r);
	}
	row_ix_free(&fr.ix);
	free(fr.pk);
	if (oom) {
		sched_diag_add(d, SCHED_ERROR, 0, 0, "out of memory");
		return fr.errs + 1;
	}
	return fr.errs;
}

void sched_summarize(const struct sched_table *t, struct sched_port_summary *ps,
		     struct sched_flow_summary *fs)
{
	uint32_t *freq = calloc((size_t)t->nrows + 1, sizeof(uint32_t));
	uint32_t *first = malloc(sizeof(uint32_t) * (t->nflows + 1));
	uint32_t *last = malloc(sizeof(uint32_t) * (t->nflows + 1));
	double *sum = calloc((size_t)t->nports + 1, sizeof(double));
	double *free_ns = calloc((size_t)t->nports + 1, sizeof(double));
	double cycle_s = (double)t->tf_ns * t->k / 1e9;
	double usable = (double)(t->tf_ns - t->guard_ns);

	memset(ps, 0, sizeof(*ps) * t->nports);
	memset(fs, 0, sizeof(*fs) * t->nflows);
	if (!freq || !first || !last || !sum || !free_ns)
		goto out;
	for (uint32_t f = 0; f < t->k; f++)
		freq[t->frame_row[f]]++;
	for (uint32_t p = 0; p < t->nports; p++) {
		ps[p].capacity_bits = sched_port_capacity_bits(t, p);
		ps[p].util_min = 1e300;
	}
	/* the (row, port) pairs that reserve anything; the frames of a port that
	 * reserve nothing count as 0 % used and all TF - guard free */
	for (uint32_t r = 0; r < t->nrows; r++)
		for (uint32_t i = t->row_off[r], next; freq[r] && i < t->row_off[r + 1]; i = next) {
			uint64_t b;
			uint32_t p = t->flows[t->ent[i].flow].port;
			next = port_run(t, i, t->row_off[r + 1], &b);
			struct sched_port_summary *s = &ps[p];
			double u = bits_ns(b, t->ports[p].rate_bps) / usable;
			if (u < s->util_min)
				s->util_min = u;
			if (u > s->util_max)
				s->util_max = u;
			sum[p] += u * freq[r];
			s->frames_used += freq[r];
			if (b > s->capacity_bits)
				s->frames_over += freq[r];
			double fr = usable - bits_ns(b, t->ports[p].rate_bps);
			free_ns[p] += (fr > 0 ? fr : 0) * freq[r];
			s->reserved_bps += (double)b * freq[r];
		}
	for (uint32_t p = 0; p < t->nports; p++) {
		struct sched_port_summary *s = &ps[p];
		if (s->frames_used < t->k) {
			s->util_min = 0;
			free_ns[p] += usable * (t->k - s->frames_used);
		}
		s->util_avg = sum[p] / t->k;
		s->be_bps = (double)t->ports[p].rate_bps * free_ns[p] / ((double)t->tf_ns * t->k);
		s->reserved_bps /= cycle_s;
	}
	for (uint32_t r = 0; r < t->nrows; r++)
		for (uint32_t i = t->row_off[r]; i < t->row_off[r + 1]; i++) {
			const struct sched_entry *e = &t->ent[i];
			fs[e->flow].pkts_per_cycle += (uint64_t)e->n * freq[r];
			fs[e->flow].frames_per_cycle += freq[r];
		}
	/* Worst wait: the longest cyclic gap between a flow's reserved frames. A
	 * packet arriving just after frame j starts waits for the next reserved
	 * frame after j (it must be queued by the end of the frame before). */
	memset(first, 0xff, sizeof(uint32_t) * (t->nflows + 1));
	for (uint32_t f = 0; f < t->k; f++) {
		uint32_t n;
		const struct sched_entry *e = sched_row(t, f, &n);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t fl = e[i].flow;
			if (first[fl] == UINT32_MAX) {
				first[fl] = f;
			} else {
				uint64_t gap = (uint64_t)(f - last[fl]) * t->tf_ns;
				if (gap > fs[fl].max_wait_ns)
					fs[fl].max_wait_ns = gap;
			}
			last[fl] = f;
		}
	}
	for (uint32_t fl = 0; fl < t->nflows; fl++) {
		struct sched_flow_summary *s = &fs[fl];
		if (first[fl] != UINT32_MAX) {
			uint64_t gap = (uint64_t)(t->k - last[fl] + first[fl]) * t->tf_ns;
			if (gap > s->max_wait_ns)
				s->max_wait_ns = gap;
		}
		s->pps = (double)s->pkts_per_cycle / cycle_s;
		s->bps = s->pps * t->flows[fl].size * 8;
	}
out:
	free(freq);
	free(first);
	free(last);
	free(sum);
	free(free_ns);
}
