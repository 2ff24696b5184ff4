/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy22_argp.c - DOCA 2.2's argp as that generation's programs use it
 * (the sync-event samples' flags), built against the 2.2 headers only.
 *
 *   legacy22_argp -p 03:00.0 --async --qdepth 8    parses; prints the values
 *   legacy22_argp -v                               the version callback; exit 0
 *   legacy22_argp json                             a JSON_OBJ flag is refused
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_version.h>

DOCA_LOG_REGISTER(LEGACY22_ARGP);

struct config {
	char pci[32];
	bool async;
	int qdepth;
};

static doca_error_t pci_cb(void *param, void *config)
{
	struct config *cfg = config;

	if (strlen(param) >= sizeof(cfg->pci))
		return DOCA_ERROR_INVALID_VALUE;
	strcpy(cfg->pci, param);
	return DOCA_SUCCESS;
}

static doca_error_t async_cb(void *param, void *config)
{
	((struct config *)config)->async = *(bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t qdepth_cb(void *param, void *config)
{
	((struct config *)config)->qdepth = *(int *)param;
	return DOCA_SUCCESS;
}

static doca_error_t version_cb(void *param, void *config)
{
	(void)param;
	(void)config;
	printf("DOCA SDK     Version (Compilation): %s\n", doca_version());
	printf("DOCA Runtime Version (Runtime):     %s\n", doca_version_runtime());
	doca_argp_destroy();
	exit(EXIT_SUCCESS);
}

static doca_error_t add(const char *s, const char *l, enum doca_argp_type type, doca_argp_param_cb_t cb, bool mandatory)
{
	struct doca_argp_param *param;
	doca_error_t r = doca_argp_param_create(&param);

	if (r != DOCA_SUCCESS)
		return r;
	doca_argp_param_set_short_name(param, s);
	doca_argp_param_set_long_name(param, l);
	doca_argp_param_set_description(param, "a flag of the test");
	doca_argp_param_set_callback(param, cb);
	doca_argp_param_set_type(param, type);
	if (mandatory)
		doca_argp_param_set_mandatory(param);
	return doca_argp_register_param(param);
}

int main(int argc, char **argv)
{
	struct config cfg = {{0}, false, 0};
	doca_error_t r;

	if (doca_log_create_standard_backend() != DOCA_SUCCESS)
		return 1;
	if (doca_argp_init("legacy22_argp", &cfg) != DOCA_SUCCESS)
		return 1;
	if (argc > 1 && strcmp(argv[1], "json") == 0) {
		r = add("j", "json", DOCA_ARGP_TYPE_JSON_OBJ, pci_cb, false);
		doca_argp_destroy();
		if (r == DOCA_SUCCESS) {
			fprintf(stderr, "a JSON_OBJ flag was accepted\n");
			return 1;
		}
		printf("JSON_OBJ refused: %s\n", doca_get_error_name(r));
		return 0;
	}
	if (add("p", "pci-addr", DOCA_ARGP_TYPE_STRING, pci_cb, true) != DOCA_SUCCESS ||
	    add("a", "async", DOCA_ARGP_TYPE_BOOLEAN, async_cb, false) != DOCA_SUCCESS ||
	    add("q", "qdepth", DOCA_ARGP_TYPE_INT, qdepth_cb, false) != DOCA_SUCCESS ||
	    doca_argp_register_version_callback(version_cb) != DOCA_SUCCESS)
		return 1;
	r = doca_argp_start(argc, argv);
	doca_argp_destroy();
	if (r != DOCA_SUCCESS)
		return 1;
	printf("pci=%s async=%d qdepth=%d\n", cfg.pci, cfg.async, cfg.qdepth);
	return strcmp(cfg.pci, "03:00.0") == 0 && cfg.async && cfg.qdepth == 8 ? 0 : 1;
}
