/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_argp.h (DOCA 2.2 flavour) - the command-line parser of DOCA programs.
 *
 * doca_argp_init, one doca_argp_param per flag (create, set names, type and
 * callback, register), doca_argp_start(argc, argv), doca_argp_destroy. Every
 * program also has -h/--help, -v/--version (the registered version callback)
 * and -l/--log-level (20 critical .. 60 debug).
 */
#ifndef DOCA_ARGP_H_
#define DOCA_ARGP_H_

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef doca_error_t (*doca_argp_param_cb_t)(void *, void *);
typedef doca_error_t (*doca_argp_dpdk_cb_t)(int argc, char **argv);
typedef doca_error_t (*doca_argp_validation_cb_t)(void *);

/** What a flag's callback receives: char * for STRING, int * for INT, bool * (true) for BOOLEAN. */
enum doca_argp_type {
	DOCA_ARGP_TYPE_UNKNOWN = 0,
	DOCA_ARGP_TYPE_STRING,
	DOCA_ARGP_TYPE_INT,
	DOCA_ARGP_TYPE_BOOLEAN,
	DOCA_ARGP_TYPE_JSON_OBJ, /**< not offered by Ferry: the flag does not register */
};

struct doca_argp_param;

DOCA_EXPERIMENTAL void doca_argp_usage(void);
DOCA_EXPERIMENTAL doca_error_t doca_argp_init(const char *program_name, void *program_config);
/** Takes ownership of @p input_param. */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_param(struct doca_argp_param *input_param);
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback);
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback);
DOCA_EXPERIMENTAL doca_error_t doca_argp_start(int argc, char **argv);
DOCA_EXPERIMENTAL doca_error_t doca_argp_destroy(void);
DOCA_EXPERIMENTAL void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback);
DOCA_EXPERIMENTAL doca_error_t doca_argp_param_create(struct doca_argp_param **param);
DOCA_EXPERIMENTAL void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name);
DOCA_EXPERIMENTAL void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name);
DOCA_EXPERIMENTAL void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments);
DOCA_EXPERIMENTAL void doca_argp_param_set_description(struct doca_argp_param *param, const char *description);
DOCA_EXPERIMENTAL void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback);
DOCA_EXPERIMENTAL void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type)
	FERRY_LEGACY_SYMBOL(ferry_v22_argp_param_set_type);
DOCA_EXPERIMENTAL void doca_argp_param_set_mandatory(struct doca_argp_param *param);
DOCA_EXPERIMENTAL void doca_argp_param_set_cli_only(struct doca_argp_param *param);
DOCA_EXPERIMENTAL void doca_argp_param_set_multiplicity(struct doca_argp_param *param);
DOCA_EXPERIMENTAL doca_error_t doca_argp_param_destroy(struct doca_argp_param *param);
DOCA_EXPERIMENTAL doca_error_t doca_argp_get_log_level(int *log_level);
DOCA_EXPERIMENTAL doca_error_t doca_argp_get_sdk_log_level(int *log_level);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ARGP_H_ */
