/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdpd's counters, declared once: each with the field the daemon keeps it
 * in, the key tdpd's replies (flows, ports, stats, sync, routes) and its JSON
 * summary give it, and what it counts. The daemon's structs (engine.h, rx.h,
 * nl.h, timebase.h), the JSON it writes (summary.c, control_routes.c), the
 * Prometheus names tdpctl prints and tdpctl's check that a reply has every
 * key all come from these lists, so a counter renamed on one side is renamed
 * on both, and a new one is a line here and its increment.
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
	X(stage_overruns, "stage_overruns", "tdpd_stage_overruns_total",                          \
	  "Frames whose row the engine began taking from the queues before the frame's start "    \
	  "and ended after it.")                                                                  \
	X(overrun_skips, "overrun_skips", "tdpd_overrun_skips_total",                             \
	  "Times the engine found frames skipped right after such a staging.")                    \
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

/* RX's counters (struct rx_stats, summed over the RX cores), under the stats
 * reply's "rx", with their Prometheus names. Its drops by reason, the host
 * stack's frames by class and the ICMP errors sent by kind are arrays named
 * by their enums (rx_drop_name, punt_class_name, icmp_err_name).
 *   X(field, "key", "prometheus name", "what it counts") */
#define CTL_RX_COUNTERS(X)                                                                       \
	X(pkts, "pkts", "tdpd_rx_packets_total", "Packets received.")                            \
	X(bytes, "bytes", "tdpd_rx_bytes_total", "Bytes received.")                              \
	X(reserved, "reserved", "tdpd_rx_reserved_total",                                        \
	  "Packets classified to a reserved flow.")                                              \
	X(best_effort, "best_effort", "tdpd_rx_best_effort_total",                               \
	  "Packets forwarded as best effort.")                                                   \
	X(flow_overflow, "flow_overflow", "tdpd_rx_flow_overflow_total",                         \
	  "Reserved packets dropped: their flow's queue was full (the flows' overflow summed).") \
	X(resolve_asked, "resolve_asked", "tdpd_rx_resolve_asked_total",                         \
	  "Next hops RX asked the kernel to resolve (ARP/ND).")                                  \
	X(resolve_ring_full, "resolve_ring_full", "tdpd_rx_resolve_ring_full_total",             \
	  "Requests to resolve not made: the ring to the netlink thread was full.")              \
	X(nh_cached, "route_cached", "tdpd_rx_route_cached_total",                               \
	  "Reserved packets routed by their flow's cached route.")                               \
	X(moved_best_effort, "moved_best_effort", "tdpd_rx_moved_best_effort_total",             \
	  "Reserved packets sent as best effort by a moved route (moved-route best-effort).")    \
	X(handoff_sent, "handoff_sent", "tdpd_rx_handoff_sent_total",                            \
	  "Packets other RX cores handed to core 0 to send at once.")                            \
	X(handoff_drop, "handoff_drop", "tdpd_rx_handoff_drop_total",                            \
	  "Packets handed to core 0 that the driver refused, dropped.")

/* ICMP errors owed but not sent, by reason (struct rx_stats), under the stats
 * reply's "rx"."icmp_not_sent". */
#define CTL_RX_ICMP_UNSENT(X)                                                                     \
	X(icmp_rate_limited, "rate_limited", "tdpd_icmp_not_sent_total{reason=\"rate_limited\"}", \
	  "ICMP errors owed but not sent, by reason.")                                            \
	X(icmp_no_source, "no_source", "tdpd_icmp_not_sent_total{reason=\"no_source\"}",          \
	  "ICMP errors owed but not sent, by reason.")                                            \
	X(icmp_tx_full, "tx_full", "tdpd_icmp_not_sent_total{reason=\"tx_full\"}",                \
	  "ICMP errors owed but not sent, by reason.")

/* IPv4 packets over the egress MTU without DF, fragmented (RFC 1812
 * §4.2.2.7): the packets, the fragments queued, and the fragments lost (no
 * buffer, or the queue was full). Under the stats reply's "rx"."fragmented". */
#define CTL_RX_FRAG_COUNTERS(X)                                                \
	X(frag_pkts, "packets", "tdpd_rx_fragmented_total",                    \
	  "IPv4 packets over the egress MTU without DF, fragmented.")          \
	X(frag_sent, "fragments", "tdpd_rx_fragments_total{result=\"sent\"}",  \
	  "Fragments sent, and lost (no buffer, queue full).")                 \
	X(frag_drop, "dropped", "tdpd_rx_fragments_total{result=\"dropped\"}", \
	  "Fragments sent, and lost (no buffer, queue full).")

/* A port's exception interface, by what crossed it (struct rx_tap_stats,
 * summed over the RX cores), under the ports reply's "host_path"."exception". */
#define CTL_TAP_COUNTERS(X)                                                              \
	X(to_kernel, "to_kernel", "Host frames the exception interface took.")           \
	X(to_kernel_drop, "to_kernel_drop", "Host frames it refused, dropped.")          \
	X(from_kernel, "from_kernel", "Frames the kernel wrote, queued as best effort.") \
	X(from_kernel_drop, "from_kernel_drop",                                          \
	  "Frames the kernel wrote, dropped: best-effort queue full, the port refused, chained.")

/* The netlink thread's counters (struct nl_stats), under the routes reply's
 * "netlink". */
#define CTL_NETLINK_COUNTERS(X)                                                               \
	X(messages, "messages", "Route, neighbour, address, nexthop and link messages read.") \
	X(rebuilds, "rebuilds", "Routers built and taken by RX.")                             \
	X(build_us, "build_us",                                                               \
	  "Microseconds spent building routers (over rebuilds: the mean build).")             \
	X(resolve_sent, "resolve_sent", "NTF_USE requests sent to the kernel.")               \
	X(errors, "errors", "Routers that failed to build (the old one stays).")              \
	X(resyncs, "resyncs",                                                                 \
	  "The kernel's tables read again after a link change or an overflow.")               \
	X(dumps_redone, "dumps_redone", "Dumps the kernel interrupted, read again.")          \
	X(multipath, "multipath", "Routes with more than one next hop on the ports.")         \
	X(missing, "missing",                                                                 \
	  "Routes and host entries the route table could not take, in the router in force.")

/* The time source's sync counters (struct tb_sync), under the stats and sync
 * replies' "sync", and as tdpd_sync_KEY_total. */
#define CTL_SYNC_COUNTERS(X)                                                    \
	X(samples, "samples", "Samples taken.")                                 \
	X(bad_samples, "bad_samples", "Samples outside the lock threshold.")    \
	X(busy, "busy_samples",                                                 \
	  "Samples not taken: the engine's thread found the state being read.") \
	X(faults, "faults", "Reference faults.")                                \
	X(transitions, "transitions", "Sync state changes.")                    \
	X(steps, "steps", "Phase steps of the reference.")

/* A struct member of each counter: struct x { CTL_FLOW_COUNTERS(CTL_COUNTER_FIELD) }; */
#define CTL_COUNTER_FIELD(field, key, help) uint64_t field;
/* the same, of a list with Prometheus names */
#define CTL_PROM_FIELD(field, key, prom, help) uint64_t field;

#endif
