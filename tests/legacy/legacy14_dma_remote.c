/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy14_dma_remote.c - DOCA 1.4's remote copy, laid out as that
 * generation's dma_remote_copy_sender and _receiver samples: the sender (host
 * side) exports a buffer as JSON text and sends it over TCP; the receiver (DPU
 * side) reads "addr" and "len" from the text itself, builds a map from the
 * export, copies the buffer into its own memory, checks it and answers with
 * the ack text the sender waits for.
 *
 *   legacy14_dma_remote pair [size]     run both: the receiver here (listening
 *                                       on 127.0.0.1), the sender as a second
 *                                       process (this program again)
 *   legacy14_dma_remote sender <port> [size]
 *
 * Exit 0 when every byte arrived and the ack came back.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>

#include "legacy14_common.h"

DOCA_LOG_REGISTER(DMA_REMOTE_COPY);

#define PAGE_SIZE     4096
#define RECV_BUF_SIZE 1024 /* the receiver's buffer for the export text */
#define ACK_TEXT      "DMA operation on receiver node was completed"
#define ACK_WAIT_MS   30000

static char pattern_byte(size_t i)
{
	return (char)(i * 131 + 11);
}

/* ---- the receiver's own reading of the JSON text (1.x programs used json-c) ---- */

/* The integer after "key": in @p text, or -1 when absent or malformed. */
static long long json_int(const char *text, const char *key)
{
	char quoted[32];
	const char *p;
	char *end;
	long long v;

	snprintf(quoted, sizeof(quoted), "\"%s\"", key);
	p = strstr(text, quoted);
	if (p == NULL)
		return -1;
	p += strlen(quoted);
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p++ != ':')
		return -1;
	errno = 0;
	v = strtoll(p, &end, 10);
	if (end == p || errno != 0 || v < 0)
		return -1;
	return v;
}

/* ---- sockets ---- */

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* ---- sender: host side ---- */

static int sender(unsigned short port, size_t size)
{
	struct doca_pci_bdf pcie_addr;
	struct doca_dev *dev;
	struct doca_mmap *mmap;
	struct sockaddr_in addr = {0};
	char *export_str, *buf;
	size_t export_str_len;
	char ack[sizeof(ACK_TEXT) + 16] = {0};
	size_t got = 0;
	int sock;
	doca_error_t res;

	buf = malloc(size);
	if (buf == NULL || parse_pci_addr(LEGACY14_HOST_PCI, &pcie_addr) != DOCA_SUCCESS)
		return 1;
	for (size_t i = 0; i < size; i++)
		buf[i] = pattern_byte(i);
	if (open_local_device(&pcie_addr, &dev) != DOCA_SUCCESS)
		return 1;
	/* The sender's order: create, start, dev_add, populate, export. */
	res = doca_mmap_create("my_mmap", &mmap);
	if (res == DOCA_SUCCESS)
		res = doca_mmap_start(mmap);
	if (res == DOCA_SUCCESS)
		res = doca_mmap_dev_add(mmap, dev);
	if (res == DOCA_SUCCESS)
		res = doca_mmap_populate(mmap, buf, size, PAGE_SIZE, NULL, NULL);
	if (res == DOCA_SUCCESS)
		res = doca_mmap_export(mmap, dev, (uint8_t **)&export_str, &export_str_len);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to export the buffer: %s", doca_get_error_string(res));
		return 1;
	}
	if (export_str_len != strlen(export_str) + 1 || export_str_len >= RECV_BUF_SIZE) {
		DOCA_LOG_ERR("Export text of %zu bytes (strlen %zu)", export_str_len, strlen(export_str));
		return 1;
	}
	DOCA_LOG_INFO("Exported %zu bytes at %p as %zu bytes of JSON", size, (void *)buf, export_str_len);

	sock = socket(AF_INET, SOCK_STREAM, 0);
	addr.sin_family = AF_INET;
	addr.sin_port = htons(port);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (sock < 0 || connect(sock, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
	    write_all(sock, export_str, export_str_len) != 0) {
		DOCA_LOG_ERR("Unable to send the export text to 127.0.0.1:%u: %s", port, strerror(errno));
		return 1;
	}
	/* Wait for the receiver's word. */
	while (got < strlen(ACK_TEXT)) {
		struct pollfd pfd = {.fd = sock, .events = POLLIN};
		ssize_t n;

		if (poll(&pfd, 1, ACK_WAIT_MS) != 1) {
			DOCA_LOG_ERR("No ack from the receiver within %d ms", ACK_WAIT_MS);
			return 1;
		}
		n = recv(sock, ack + got, sizeof(ack) - 1 - got, 0);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(sock);
	if (strcmp(ack, ACK_TEXT) != 0) {
		DOCA_LOG_ERR("Receiver answered '%s'", ack);
		return 1;
	}
	DOCA_LOG_INFO("Receiver says: %s", ack);
	/* The sender destroys its exported, started map without dev_rm, then frees the text. */
	res = doca_mmap_destroy(mmap);
	if (res == DOCA_SUCCESS)
		res = doca_dev_close(dev);
	free(export_str);
	free(buf);
	return res == DOCA_SUCCESS ? 0 : 1;
}

/* ---- receiver: DPU side ---- */

static int listen_loopback(unsigned short *port)
{
	struct sockaddr_in addr = {0};
	socklen_t alen = sizeof(addr);
	int one = 1;
	int s = socket(AF_INET, SOCK_STREAM, 0);

	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(s, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(s, 1) != 0 ||
	    getsockname(s, (struct sockaddr *)&addr, &alen) != 0)
		return -1;
	*port = ntohs(addr.sin_port);
	return s;
}

/* The export text, as the receiver sample reads it: up to 1024 bytes, NUL-terminated. */
static int receive_export(int listener, char *text, int *conn)
{
	size_t got = 0;

	*conn = accept(listener, NULL, NULL);
	if (*conn < 0)
		return -1;
	while (got < RECV_BUF_SIZE) {
		ssize_t n = recv(*conn, text + got, RECV_BUF_SIZE - got, 0);

		if (n <= 0)
			return -1;
		got += (size_t)n;
		if (memchr(text, '\0', got) != NULL)
			return 0;
	}
	DOCA_LOG_ERR("Export text fills the %d-byte buffer without a NUL", RECV_BUF_SIZE);
	return -1;
}

/* Import @p text with its addr moved by a page: DOCA_ERROR_INVALID_VALUE expected. */
static doca_error_t try_forged_addr(const char *text, unsigned long long addr, struct doca_dev *dev)
{
	char forged[RECV_BUF_SIZE + 32], number[32];
	struct doca_mmap *mmap;
	const char *at;
	doca_error_t res;

	snprintf(number, sizeof(number), "%llu", addr);
	at = strstr(text, number);
	if (at == NULL)
		return DOCA_ERROR_UNEXPECTED;
	snprintf(forged, sizeof(forged), "%.*s%llu%s", (int)(at - text), text, addr + 4096, at + strlen(number));
	res = doca_mmap_create_from_export("forged", (uint8_t *)forged, strlen(forged) + 1, dev, &mmap);
	if (res == DOCA_SUCCESS) {
		DOCA_LOG_ERR("A text with a forged addr was accepted");
		doca_mmap_destroy(mmap);
		return DOCA_ERROR_UNEXPECTED;
	}
	if (res != DOCA_ERROR_INVALID_VALUE) {
		DOCA_LOG_ERR("A text with a forged addr answered %s", doca_get_error_name(res));
		return DOCA_ERROR_UNEXPECTED;
	}
	return DOCA_SUCCESS;
}

static int receiver(int listener, size_t size)
{
	struct program_core_objects state = {0};
	struct doca_pci_bdf pcie_addr;
	struct doca_dma *dma_ctx;
	struct doca_mmap *remote_mmap;
	struct doca_buf *src_doca_buf, *dst_doca_buf;
	struct doca_dma_job_memcpy dma_job = {0};
	char export_json[RECV_BUF_SIZE];
	long long remote_addr, remote_len;
	char *dpu_buffer;
	int conn;
	doca_error_t res;

	if (receive_export(listener, export_json, &conn) != 0)
		return 1;
	remote_addr = json_int(export_json, "addr");
	remote_len = json_int(export_json, "len");
	if (remote_addr <= 0 || remote_len <= 0 || (size_t)remote_len != size) {
		DOCA_LOG_ERR("Export text without a usable addr or len: %s", export_json);
		return 1;
	}
	dpu_buffer = calloc(1, size);
	if (dpu_buffer == NULL || parse_pci_addr(LEGACY14_DPU_PCI, &pcie_addr) != DOCA_SUCCESS)
		return 1;
	res = doca_dma_create(&dma_ctx);
	if (res == DOCA_SUCCESS)
		res = open_local_device(&pcie_addr, &state.dev);
	if (res == DOCA_SUCCESS)
		res = create_core_objects(&state, dma_ctx, 2);
	if (res == DOCA_SUCCESS)
		res = init_core_objects(&state, 1);
	if (res == DOCA_SUCCESS)
		res = doca_mmap_populate(state.mmap, dpu_buffer, size, PAGE_SIZE, NULL, NULL);
	/* A text whose addr was changed in transit is refused: the export inside covers another range. */
	if (res == DOCA_SUCCESS)
		res = try_forged_addr(export_json, (unsigned long long)remote_addr, state.dev);
	/* The receiver names its imported map as its own: names are labels. */
	if (res == DOCA_SUCCESS)
		res = doca_mmap_create_from_export("my_mmap", (uint8_t *)export_json, strlen(export_json) + 1,
						   state.dev, &remote_mmap);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to set up the copy: %s", doca_get_error_string(res));
		return 1;
	}
	res = doca_buf_inventory_buf_by_addr(state.buf_inv, remote_mmap, (void *)(uintptr_t)remote_addr,
					     (size_t)remote_len, &src_doca_buf);
	if (res == DOCA_SUCCESS)
		res = doca_buf_inventory_buf_by_addr(state.buf_inv, state.mmap, dpu_buffer, size, &dst_doca_buf);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to acquire DOCA buffer: %s", doca_get_error_string(res));
		return 1;
	}
	dma_job.base.type = DOCA_DMA_JOB_MEMCPY;
	dma_job.base.flags = DOCA_JOB_FLAGS_NONE;
	dma_job.base.ctx = state.ctx;
	dma_job.dst_buff = dst_doca_buf;
	dma_job.src_buff = src_doca_buf;
	dma_job.num_bytes_to_copy = size;
	res = run_dma_job(&state, &dma_job);
	if (res == DOCA_SUCCESS)
		for (size_t i = 0; i < size; i++)
			if (dpu_buffer[i] != pattern_byte(i)) {
				DOCA_LOG_ERR("Byte %zu of %zu did not arrive", i, size);
				res = DOCA_ERROR_UNEXPECTED;
				break;
			}
	if (doca_buf_refcount_rm(src_doca_buf, NULL) != DOCA_SUCCESS ||
	    doca_buf_refcount_rm(dst_doca_buf, NULL) != DOCA_SUCCESS || doca_mmap_destroy(remote_mmap) != DOCA_SUCCESS)
		res = DOCA_ERROR_UNEXPECTED;
	if (res == DOCA_SUCCESS) {
		DOCA_LOG_INFO("Copied %zu bytes from the host", size);
		if (write_all(conn, ACK_TEXT, strlen(ACK_TEXT)) != 0)
			res = DOCA_ERROR_IO_FAILED;
	}
	close(conn);
	cleanup_core_objects(&state);
	destroy_core_objects(&state, dma_ctx);
	free(dpu_buffer);
	return res == DOCA_SUCCESS ? 0 : 1;
}

/* Both processes: this one receives, a second one (this program again) sends. */
static int pair(const char *self, const char *size_arg)
{
	unsigned short port;
	char port_arg[16];
	int status = 0, rc;
	int listener = listen_loopback(&port);
	pid_t pid;

	if (listener < 0) {
		perror("listen on 127.0.0.1");
		return 1;
	}
	snprintf(port_arg, sizeof(port_arg), "%u", port);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(listener);
		execl(self, self, "sender", port_arg, size_arg, (char *)NULL);
		_exit(127);
	}
	rc = receiver(listener, strtoull(size_arg, NULL, 0));
	close(listener);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		DOCA_LOG_ERR("Sender process failed (status %#x)", status);
		rc = 1;
	}
	if (rc == 0)
		printf("remote copy of %s bytes from the sender's process: ok\n", size_arg);
	return rc;
}

int main(int argc, char **argv)
{
	const char *size_arg = "8388608";

	if (argc >= 2 && strcmp(argv[1], "pair") == 0)
		return pair("/proc/self/exe", argc > 2 ? argv[2] : size_arg);
	if (argc >= 3 && strcmp(argv[1], "sender") == 0)
		return sender((unsigned short)atoi(argv[2]), strtoull(argc > 3 ? argv[3] : size_arg, NULL, 0));
	fprintf(stderr, "usage: %s pair [size] | sender <port> [size]\n", argv[0]);
	return 2;
}
