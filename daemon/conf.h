/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdpd's configuration: one declarative table of options (conf_opts[]: name,
 * section, type, default, range, documentation), read from a file in the
 * style of ptp4l.conf:
 *
 *     [global]
 *     schedule /etc/tdpd/demo.tdp
 *     engine-cpu 1
 *     [port out]
 *     device net_af_packet1,iface=veth1
 *
 * and overridden on the command line: every global option as --NAME VALUE,
 * every port option as --port NAME:OPTION=VALUE. Errors name the file (or
 * "command line") and the line; a scalar given twice in one file is an error,
 * list options (address, neighbour, route) may repeat.
 */
#ifndef TDP_CONF_H
#define TDP_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "timebase.h"

/* options in the table (conf_opts), at most: where each was set is kept by index */
#ifndef CONF_MAX_OPTS
#define CONF_MAX_OPTS 96
#endif

#define CONF_MAX_PORTS 32
/* time sources, and the room each has for its own settings (tb_registry.h) */
#define CONF_MAX_SOURCES 8
#define CONF_TB_OWN_MAX 1024
/* RX cores beside the housekeeping thread's (rx-cpus) */
#define CONF_MAX_RX_CPUS 7
#define CONF_STR 256
#define CONF_MAX_BYTES (1u << 20) /* a configuration file is at most this long */

enum conf_type {
	CT_STR,
	CT_INT,
	CT_DUR,
	CT_RATE,
	CT_ENUM,
	CT_BOOL,
	CT_LIST,
	CT_FRAC /* in 1e-9 */
};
enum {
	CS_GLOBAL = 1,
	CS_PORT = 2
};

struct conf_item {
	char *val;
	const char *file;
	uint32_t line;
};

struct conf_list {
	struct conf_item *v;
	size_t n;
};

struct conf_port {
	char name[32];
	uint32_t line; /* of its [port] header */
	const char *file;
	char device[CONF_STR];
	int64_t rate_bps; /* 0: from the PMD, else the table */
	int64_t rx_desc, tx_desc;
	char peer_mac[CONF_STR];
	int64_t host_path; /* enum hp_path */
	int64_t tx_launch; /* enum pmd_launch */
	char host_interface[CONF_STR];
	struct conf_list address, neighbour, route;
	uint32_t set_line[CONF_MAX_OPTS]; /* where each option was set, by index in conf_opts */
	const char *set_file[CONF_MAX_OPTS];
};

struct conf {
	char schedule[CONF_STR];
	int64_t timebase;    /* an index into timebase_table[] */
	struct tb_params tb; /* the time sources' common settings */
	/* each source's own settings, as its opts[] declare them (by its index
	 * in timebase_table[]); conf_tb_own() gives one */
	_Alignas(8) unsigned char tb_own[CONF_MAX_SOURCES][CONF_TB_OWN_MAX];
	int64_t sync_holdover_action, sync_unlocked_action, sync_budget_action;
	int64_t time_offset_ns; /* added to the source's time */
	int64_t engine_cpu, housekeeping_cpu, engine_priority, rx_priority;
	char rx_cpus[CONF_STR]; /* CPUs of the RX cores beyond housekeeping's */
	int64_t late_policy;
	int64_t node_id;
	int64_t max_lead_ns;
	int64_t flow_queue_depth, be_queue_depth;
	int64_t spin_below_ns, min_sleep_ns, wake_margin_ns, oversleep_window, oversleep_decay;
	int64_t wake_predictor, wake_miss_ppb;
	int64_t launch_lead_ns, launch_margin_ns;
	int64_t be_poll_ns, clock_refresh_ns;
	int64_t mbufs;
	int64_t route_memory;
	int64_t rx_idle_sleep_ns;
	int64_t mlock, dma_latency, huge_pages;
	int64_t stats_interval_ns, duration_ns;
	int64_t log_level;
	char summary_json[CONF_STR];
	char control_socket[CONF_STR], monitor_socket[CONF_STR], control_group[CONF_STR];
	int64_t log_syslog;
	char xdp_program[CONF_STR];
	int64_t icmp_rate, icmp_burst, kernel_routes;
	int64_t stop_action; /* enum hp_stop */
	char state_directory[CONF_STR];
	int64_t start_table;		  /* enum start_table */
	int64_t moved_route;		  /* enum rx_moved */
	uint32_t set_line[CONF_MAX_OPTS]; /* where each global option was set */
	const char *set_file[CONF_MAX_OPTS];

	struct conf_port ports[CONF_MAX_PORTS];
	uint32_t nports;
	char *files[8]; /* names kept for messages */
	uint32_t nfiles;
};

struct conf_opt {
	const char *name;
	unsigned sect;
	enum conf_type type;
	const char *def; /* as text; NULL: none */
	int64_t min, max;
	const char *const *choices; /* CT_ENUM: NULL-terminated */
	size_t off;		    /* into struct conf or struct conf_port */
	const char *arg;	    /* placeholder in the documentation */
	const char *doc;
	bool required;
	uint8_t source; /* a time source's own setting: 1 + its index in timebase_table[]; 0: none */
};

/* every option: tdpd's own and, where the timebase option stands, each time
 * source's (conf_opts.c builds it at load) */
extern const struct conf_opt *conf_opts;
/* where an option's value lives: c, or its source's own settings */
void *conf_opt_base(struct conf *c, const struct conf_opt *o);
/* the own settings of source ops in c (its tb_params.own) */
const void *conf_tb_own(const struct conf *c, const struct timebase_ops *ops);
const struct conf_opt *conf_find(const char *name, unsigned sect);

/* start-table: the table saved in force at the last stop, or tdpd.conf's */
enum start_table {
	START_TABLE_SAVED,
	START_TABLE_CONFIG
};

extern const char *const conf_late_names[];   /* "drop", "carry" */
extern const char *const conf_action_names[]; /* "serve", "alarm", "demote" */
extern const char *const conf_level_names[];  /* as tdp_log_parse takes them */

/* Defaults from the table. */
void conf_init(struct conf *c);
void conf_free(struct conf *c);
/* Reads a file. Returns the number of errors (printed to err as file:line: error: ...). */
int conf_read_file(struct conf *c, const char *path, FILE *err);
/* The same from text in memory (path names it in messages). */
int conf_read_text(struct conf *c, const char *text, size_t len, const char *path, FILE *err);
/* Sets one option; port NULL for [global]. Returns 0 or -1 after printing. */
int conf_set(struct conf *c, const char *port, const char *name, const char *value,
	     const char *file, uint32_t line, FILE *err);
/* conf_check.c: what only the whole can tell (required options, ports);
 * what it says against this box (CPUs online, the XDP program, PMDs without
 * launch time, exception interfaces named after a port's device); against
 * the table (launch-lead). Each returns its errors, printed at the lines. */
int conf_check(const struct conf *c, FILE *err);
int conf_check_box(const struct conf *c, FILE *err);
int conf_check_table(const struct conf *c, uint64_t tf_ns, FILE *err);
struct conf_port *conf_port_find(struct conf *c, const char *name);

/* Documentation: --help text, and the option list for the man pages' tests. */
void conf_usage(FILE *out);
void conf_list_options(FILE *out);
/* rx-cpus' list: the CPUs (at most CONF_MAX_RX_CPUS, distinct), their
 * count, or -1 with why. */
int conf_rx_cpus(const char *s, int *cpus, char *why, size_t whylen);
/* The effective configuration in file syntax. */
void conf_dump(const struct conf *c, FILE *out);
/* The options as roff .TP paragraphs: file syntax, or the long options. */
void conf_man(FILE *out, bool long_opts);

#endif
