/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * link_env.c - the domain (its name, its per-user runtime directory), and the identity
 * facts an export descriptor carries (boot id, a process's start time).
 */
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "link/ferry_export.h"
#include "link/ferry_link.h"

FERRY_LOG_MODULE("link");

static int domain_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
	       c == '-';
}

const char *ferry_link_domain(const char **why)
{
	const char *domain = getenv(FERRY_LINK_DOMAIN_ENV);
	size_t len;

	if (domain == NULL || domain[0] == '\0')
		return "default";
	len = strlen(domain);
	if (len > FERRY_LINK_DOMAIN_MAX) {
		*why = "FERRY_DOMAIN is longer than 48 bytes";
		return NULL;
	}
	for (size_t i = 0; i < len; i++) {
		if (!domain_char_ok(domain[i])) {
			*why = "FERRY_DOMAIN may hold only letters, digits, '.', '_' and '-'";
			return NULL;
		}
	}
	return domain;
}

/* mkdir that accepts an existing directory only if it is ours and private. */
static doca_error_t private_dir(const char *path, bool must_be_private)
{
	struct stat st;

	if (mkdir(path, 0700) != 0 && errno != EEXIST)
		return FERRY_RULE_IN("ferry link", DOCA_ERROR_OPERATING_SYSTEM, "cannot create %s: %s", path,
				     strerror(errno));
	if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return FERRY_RULE_IN("ferry link", DOCA_ERROR_OPERATING_SYSTEM, "%s is not a directory", path);
	if (must_be_private && (st.st_uid != getuid() || (st.st_mode & 0077) != 0))
		return FERRY_RULE_IN("ferry link", DOCA_ERROR_NOT_PERMITTED,
				     "%s must be owned by uid %u with mode 0700 (it has uid %u, mode %03o)", path,
				     (unsigned)getuid(), (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
	return DOCA_SUCCESS;
}

/*
 * The per-user base: XDG_RUNTIME_DIR, /run/user/<uid>, for root /run/ferry
 * (no one else may write in /run), else a private folder in /tmp.
 */
static int user_base(char *out, size_t room, bool *base_is_private)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char run_user[64];
	struct stat st;

	*base_is_private = false;
	if (xdg != NULL && xdg[0] == '/')
		return snprintf(out, room, "%s/ferry", xdg);
	snprintf(run_user, sizeof(run_user), "/run/user/%u", (unsigned)getuid());
	if (stat(run_user, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid())
		return snprintf(out, room, "%s/ferry", run_user);
	*base_is_private = true;
	if (getuid() == 0 && stat("/run", &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 &&
	    (st.st_mode & 0022) == 0)
		return snprintf(out, room, "/run/ferry");
	return snprintf(out, room, "/tmp/ferry-%u", (unsigned)getuid());
}

doca_error_t ferry_link_domain_dir(const char *domain, char *out, size_t room)
{
	bool base_private;
	char base[4096];
	int n = user_base(base, sizeof(base), &base_private);

	if (out == NULL || n < 0 || (size_t)n >= sizeof(base))
		return FERRY_RULE_IN("ferry link", DOCA_ERROR_INVALID_VALUE, "runtime directory path too long");
	/* In /tmp anyone could have made the folder first: insist it is ours and 0700. */
	doca_error_t err = private_dir(base, base_private);
	if (err != DOCA_SUCCESS)
		return err;
	n = snprintf(out, room, "%s/%s", base, domain);
	if (n < 0 || (size_t)n >= room)
		return FERRY_RULE_IN("ferry link", DOCA_ERROR_INVALID_VALUE, "runtime directory path too long");
	return private_dir(out, true);
}

doca_error_t ferry_link_boot_id(uint8_t out[16])
{
	char text[64] = {0};
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
	size_t k = 0;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return FERRY_RULE_IN("ferry link", DOCA_ERROR_OPERATING_SYSTEM, "cannot read the boot id");
	for (ssize_t i = 0; i + 1 < n && k < 16; i++) {
		int hi = ferry_hex_value(text[i]), lo;
		if (hi < 0)
			continue; /* dashes */
		lo = ferry_hex_value(text[i + 1]);
		if (lo < 0)
			break;
		out[k++] = (uint8_t)(hi << 4 | lo);
		i++;
	}
	if (k != 16)
		return FERRY_RULE_IN("ferry link", DOCA_ERROR_OPERATING_SYSTEM, "boot id '%.40s' is not a UUID", text);
	return DOCA_SUCCESS;
}

doca_error_t ferry_link_pid_start_time(int pid, uint64_t *start)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return DOCA_ERROR_NOT_FOUND;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return DOCA_ERROR_NOT_FOUND;
	buf[n] = '\0';
	/* The command name may hold spaces and ')': fields restart after the last ')'. */
	char *p = strrchr(buf, ')');
	if (p == NULL)
		return DOCA_ERROR_NOT_FOUND;
	/* After ')' come field 3 (state) ... field 22 (starttime): skip 19 fields. */
	p++;
	for (int field = 3; field < 22 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	if (p == NULL)
		return DOCA_ERROR_NOT_FOUND;
	*start = strtoull(p + 1, NULL, 10);
	return DOCA_SUCCESS;
}

doca_error_t ferry_link_netns(uint64_t *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st) != 0)
		return FERRY_RULE_IN("ferry link", DOCA_ERROR_OPERATING_SYSTEM, "cannot read /proc/self/ns/net: %s",
				     strerror(errno));
	*ino = (uint64_t)st.st_ino;
	return DOCA_SUCCESS;
}

enum ferry_link_net_mode ferry_link_net_mode(void)
{
	static _Atomic int warned;
	const char *v = getenv("FERRY_LINK_NET");

	if (v == NULL || v[0] == '\0' || strcmp(v, "auto") == 0)
		return FERRY_LINK_NET_AUTO;
	if (strcmp(v, "always") == 0)
		return FERRY_LINK_NET_ALWAYS;
	if (strcmp(v, "never") == 0)
		return FERRY_LINK_NET_NEVER;
	if (atomic_exchange(&warned, 1) == 0)
		FERRY_WARN("FERRY_LINK_NET='%.32s' is not auto, always or never; taken as auto", v);
	return FERRY_LINK_NET_AUTO;
}
