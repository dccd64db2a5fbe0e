/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading tdpd.conf: the file whole (bounded), line by line, sections and
 * options handed to conf_set (conf.c). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "conf_priv.h"

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	return s;
}

/* The whole of path, NUL-terminated, at most CONF_MAX_BYTES: a FIFO or
 * standard input as well as a file; a directory, an endless input or a read
 * error is an error. */
static char *read_all(const char *path, size_t *len, FILE *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		conf_error_at(err, path, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		conf_error_at(err, path, 0, "is a directory, not a configuration file");
		close(fd);
		return NULL;
	}
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (buf && n + 1 >= cap && cap <= CONF_MAX_BYTES) {
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				free(buf);
			buf = nb;
			cap *= 2;
		}
		if (!buf) {
			conf_error_at(err, path, 0, "out of memory");
			break;
		}
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			conf_error_at(err, path, 0, "reading: %s", strerror(errno));
			break;
		}
		if (r == 0) {
			close(fd);
			buf[n] = 0;
			*len = n;
			return buf;
		}
		n += (size_t)r;
		if (n > CONF_MAX_BYTES) {
			conf_error_at(err, path, 0, "more than %u bytes: not a configuration file",
				      CONF_MAX_BYTES);
			break;
		}
	}
	free(buf);
	close(fd);
	return NULL;
}

int conf_read_text(struct conf *c, const char *text, size_t len, const char *path, FILE *err)
{
	const char *file = conf_keep_name(c, path);
	char buf[4096];
	uint32_t line = 0;
	int errors = 0;
	char port[32] = "";
	bool in_global = true, bad_section = false;
	for (size_t at = 0; at < len;) {
		const char *start = text + at, *nl = memchr(start, '\n', len - at);
		size_t n = nl ? (size_t)(nl - start) : len - at;
		at += n + (nl != NULL);
		line++;
		if (n > sizeof(buf) - 2) {
			conf_error_at(err, file, line, "line longer than %zu characters",
				      sizeof(buf) - 2);
			errors++;
			continue;
		}
		const char *nul = memchr(start, 0, n);
		if (nul) {
			conf_error_at(err, file, line, "a NUL byte at column %zu: not a text file",
				      (size_t)(nul - start) + 1);
			errors++;
			continue;
		}
		memcpy(buf, start, n);
		buf[n] = 0;
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = 0;
		char *s = trim(buf);
		if (!*s)
			continue;
		if (*s == '[') {
			char *close = strchr(s, ']');
			bad_section = false;
			if (!close || *trim(close + 1)) {
				conf_error_at(err, file, line,
					      "a section header is [global] or [port NAME]");
				errors++;
				bad_section = true;
				continue;
			}
			*close = 0;
			char *name = trim(s + 1);
			if (strcmp(name, "global") == 0) {
				in_global = true;
				continue;
			}
			if (strncmp(name, "port", 4) == 0 && isspace((unsigned char)name[4])) {
				char *pn = trim(name + 4);
				size_t pl = strlen(pn);
				bool ok = pl > 0 && pl < sizeof(port);
				for (size_t i = 0; ok && i < pl; i++)
					ok = isalnum((unsigned char)pn[i]) || strchr("_-.", pn[i]);
				if (!ok) {
					conf_error_at(err, file, line,
						      "bad port name '%s' (letters, digits, '_', "
						      "'-', '.'; at most 31)",
						      pn);
					errors++;
					bad_section = true;
					continue;
				}
				struct conf_port *old = conf_port_find(c, pn);
				if (old) {
					conf_error_at(err, file, line,
						      "[port %s] given twice (first at line %u)",
						      pn, old->line);
					errors++;
					bad_section = true;
					continue;
				}
				if (!conf_port_add(c, pn, file, line)) {
					conf_error_at(err, file, line, "more than %d ports",
						      CONF_MAX_PORTS);
					errors++;
					bad_section = true;
					continue;
				}
				snprintf(port, sizeof(port), "%s", pn);
				in_global = false;
				continue;
			}
			conf_error_at(err, file, line,
				      "unknown section [%s]; sections are [global] and [port NAME]",
				      name);
			errors++;
			bad_section = true;
			continue;
		}
		if (bad_section)
			continue;
		char *sp = s;
		while (*sp && !isspace((unsigned char)*sp))
			sp++;
		char *val = "";
		if (*sp) {
			*sp = 0;
			val = trim(sp + 1);
		}
		if (!*val) {
			conf_error_at(err, file, line, "'%s' needs a value", s);
			errors++;
			continue;
		}
		if (conf_set(c, in_global ? NULL : port, s, val, file, line, err) != 0)
			errors++;
	}
	return errors;
}

int conf_read_file(struct conf *c, const char *path, FILE *err)
{
	size_t len = 0;
	char *text = read_all(path, &len, err);
	if (!text)
		return 1;
	int errors = conf_read_text(c, text, len, path, err);
	free(text);
	return errors;
}
