/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-flow and per-port counters, declared once: each with the field the
 * daemon keeps it in, the key tdpd's replies (flows, ports, stats) and its
 * JSON summary give it, and what it counts. The daemon's structs (engine.h),
 * the JSON it writes (summary.c), the Prometheus names tdpctl prints
 * (tdpd_flow_KEY_total, tdpd_port_KEY_total) and tdpctl's check that a reply
 * has every key all come from these lists, so a counter renamed on one side
 * is renamed on both, and a new one is a line here and its increment.
 *
 *   X(field, "key", "what it counts")
 */
#ifndef TDP_CTL_COUNTERS_H
#define TDP_CTL_COUNTERS_H

/* A flow's counters RX keeps, one set per RX core (struct flow_rx in
 * flowq.h), summed over the cores (struct flow_rx_sum). */
#define CTL_FLOW_RX_COUNTERS(X)                                                                 \
	X(enq, "rx", "Packets RX queued for the flow.")                                         \
	X(overflow, "overflow", "Packets dropped: the flow's queue was full.")                  \
	X(arr_guard, "arr_guard",                                                               \
	  "Pipelined packets that arrived in the upstream frame's guard band (near the next "   \
	  "frame).")                                                                            \
	X(arr_uncertain, "arr_uncertain",                                                       \
	  "Pipelined packets read so late that they may belong to an earlier upstream frame.")  \
	X(route_moved, "route_moved",                                                           \
	  "Reserved packets whose route left by another port than the flow's (moved-route).")   \
	X(link_down, "link_down", "Reserved packets dropped: the flow's port's link was down.") \
	X(too_big, "too_big",                                                                   \
	  "Reserved packets dropped: over the flow's port's MTU (never fragmented).")

/* A flow's counters the frame engine keeps (struct flow_stats). */
#define CTL_FLOW_COUNTERS(X)                                                                  \
	X(reserved, "reserved", "Slots the table gave the flow.")                             \
	X(sent, "sent", "Packets sent in their reserved frame.")                              \
	X(unused, "unused", "Slots with no packet waiting.")                                  \
	X(late_dropped, "late_dropped", "Packets of late frames dropped.")                    \
	X(late_carried, "late_carried",                                                       \
	  "Packets of late frames carried to the next reserved frame.")                       \
	X(late_slots, "late_slots",                                                           \
	  "Slots of skipped frames whose packets stayed queued (late policy carry).")         \
	X(late_frames, "late_frames", "Frames of the flow that were late.")                   \
	X(tx_drop, "tx_drop", "Packets the driver had not taken by the guard band, dropped.") \
	X(tx_carried, "tx_carried",                                                           \
	  "Packets the driver had not taken by the guard band, carried to the next reserved " \
	  "frame.")                                                                           \
	X(demoted, "demoted", "Packets sent as best effort while demoted.")                   \
	X(arr_late_dropped, "arr_late_dropped",                                               \
	  "Pipelined packets that arrived after their frame was staged, dropped.")            \
	X(arr_late_carried, "arr_late_carried",                                               \
	  "Pipelined packets that arrived after their frame was staged, carried.")            \
	X(stamped, "stamped", "Probe packets that got this node's hop stamp.")

/* A port's counters the frame engine keeps (struct port_stats): its reserved
 * packets not sent by the same reasons as its flows' (each the sum over the
 * port's flows), best effort apart. */
#define CTL_PORT_COUNTERS(X)                                                                  \
	X(frames, "frames", "Frames with a reservation pushed on time.")                      \
	X(late_frames, "late_frames", "Frames late on the port.")                             \
	X(rsv_pkts, "reserved_pkts", "Reserved packets sent.")                                \
	X(rsv_bytes, "reserved_bytes", "Reserved bytes sent.")                                \
	X(be_pkts, "be_pkts", "Best-effort packets sent.")                                    \
	X(be_bytes, "be_bytes", "Best-effort bytes sent.")                                    \
	X(be_too_big, "be_too_big", "Best effort that can never fit in a frame.")             \
	X(be_tx_drop, "be_tx_drop", "Best-effort packets the driver refused.")                \
	X(tx_drop, "tx_drop",                                                                 \
	  "Reserved packets the driver had not taken by the guard band, dropped.")            \
	X(tx_carried, "tx_carried",                                                           \
	  "Reserved packets the driver had not taken by the guard band, carried.")            \
	X(late_dropped, "late_dropped", "Reserved packets of late frames dropped.")           \
	X(late_carried, "late_carried", "Reserved packets of late frames carried.")           \
	X(arr_late_dropped, "arr_late_dropped",                                               \
	  "Pipelined packets that arrived after their frame was staged, dropped.")            \
	X(push_retries, "push_retries",                                                       \
	  "Calls to the driver beyond the first of a push, while it took part of the burst.") \
	X(launch_frames, "launch_frames", "Frames handed to the NIC with launch times.")      \
	X(launch_late, "launch_late",                                                         \
	  "Frames of a launch-time port pushed by the CPU: handed over after start - "        \
	  "launch-margin.")                                                                   \
	X(launch_unready, "launch_unready",                                                   \
	  "Frames of a launch-time port pushed by the CPU: its clock map not ready.")

/* The frame engine's counters (struct eng_stats), with their Prometheus
 * names: X(field, "key", "prometheus name", "what it counts") */
#define CTL_ENGINE_COUNTERS(X)                                                                    \
	X(frames, "frames", "tdpd_frames_total", "Frames the engine processed (pushed or late).") \
	X(late_frames, "late_frames", "tdpd_late_frames_total",                                   \
	  "Frames late on at least one port.")                                                    \
	X(skipped_frames, "skipped_frames", "tdpd_skipped_frames_total",                          \
	  "Frames whose start passed while the engine was away.")                                 \
	X(skip_events, "skip_events", "tdpd_skip_events_total",                                   \
	  "Times the engine found frames skipped.")                                               \
	X(back_steps, "back_steps", "tdpd_back_steps_total",                                      \
	  "Times the reference stepped back across a frame start.")                               \
	X(repeated_frames, "repeated_frames", "tdpd_repeated_frames_total",                       \
	  "Frame starts that came round again (not re-sent).")                                    \
	X(holdover_frames, "holdover_frames", "tdpd_holdover_frames_total",                       \
	  "Frames processed in holdover.")                                                        \
	X(unlocked_frames, "unlocked_frames", "tdpd_unlocked_frames_total",                       \
	  "Frames processed unlocked.")                                                           \
	X(alarm_frames, "alarm_frames", "tdpd_alarm_frames_total",                                \
	  "Frames served while not locked (action alarm).")                                       \
	X(over_budget_frames, "over_budget_frames", "tdpd_over_budget_frames_total",              \
	  "Frames begun with the source's uncertainty past the table's sync budget.")             \
	X(demoted_frames, "demoted_frames", "tdpd_demoted_frames_total",                          \
	  "Frames with the reserved flows demoted to best effort.")                               \
	X(ticks, "ticks", "tdpd_ticks_total", "Frame ticks taken from the time source.")          \
	X(tick_timeouts, "tick_timeouts", "tdpd_tick_timeouts_total",                             \
	  "Frames whose tick did not come in time.")                                              \
	X(swaps, "swaps", "tdpd_table_swaps_total", "Reservation tables adopted.")                \
	X(late_swaps, "late_swaps", "tdpd_table_late_swaps_total",                                \
	  "Tables adopted after the frame asked for.")                                            \
	X(sleep_ns, "sleep_ns", "tdpd_engine_sleep_nanoseconds_total",                            \
	  "Time the engine spent asleep.")
#define CTL_ENGINE_FIELD(field, key, prom, help) uint64_t field;

/* A struct member of each counter: struct x { CTL_FLOW_COUNTERS(CTL_COUNTER_FIELD) }; */
#define CTL_COUNTER_FIELD(field, key, help) uint64_t field;

#endif
