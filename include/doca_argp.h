/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_argp.h - DOCA's command-line parser (library doca-argp).
 *
 * Call order:
 *   doca_argp_init(name, &config);
 *   for each flag: doca_argp_param_create, the _set_ calls, doca_argp_register_param;
 *   optionally doca_argp_register_validation_callback / _version_callback;
 *   doca_argp_start(argc, argv);   -> each flag's callback gets (value, &config)
 *   ...
 *   doca_argp_destroy();
 *
 * Values handed to a flag callback, by type: STRING a `char *`, INT an `int *`,
 * BOOLEAN a `bool *` (always true: a boolean flag takes no argument), DOUBLE a
 * `double *`, DEVICE a `struct doca_argp_device_ctx *`, DEVICE_REP a
 * `struct doca_argp_device_rep_ctx *`. The pointer is only valid during the
 * callback: copy what you keep (devargs text stays valid until doca_argp_destroy).
 *
 * Device flags: DEVICE takes "<device>[,<devargs>]", DEVICE_REP takes
 * "<device>,<representor>[,<devargs>]". <device> is "pci/<address>", a bare PCI
 * address, an IB device name or an interface name, and must match exactly one
 * device; <representor> is the representor's interface name (pf0hpf, pf0vf1), its
 * vuid or its PCI address. The parser opens them (the device through the callback
 * of doca_argp_register_dev_open_callback when one is set) and hands them to the
 * flag's callback, which owns them from then on and closes them.
 *
 * Built-in flags, present in every program:
 *   -h, --help             print the usage on stdout and exit(EXIT_SUCCESS)
 *   -v, --version          call the version callback, or print the versions and exit(EXIT_SUCCESS)
 *   -l, --log-level L      set the global lower limit of application logs
 *   --sdk-log-level L      set the global SDK log limit
 *   -j, --json FILE        take flags from a JSON file (read after the command line;
 *                          a flag given on the command line keeps that value)
 * L is a level number (10 disable ... 70 trace) or its name (error, info, debug ...).
 *
 * JSON files: one object with "doca_general_flags" ({"log-level": 60, ...}) and
 * "doca_program_flags" ({"<long name>": value, ...}); // and block comments are
 * allowed. Values have the flag's JSON type (string, integer, number, true/false;
 * false means "not given"); a flag with multiplicity takes an array. Unknown keys
 * and command-line-only flags (set_cli_only, or no long name) fail with
 * DOCA_ERROR_NOT_SUPPORTED unless doca_argp_disable_pedantic_config_parsing() was
 * called; an unreadable or malformed file fails with DOCA_ERROR_IO_FAILED, a value
 * of the wrong type with DOCA_ERROR_INVALID_VALUE.
 *
 * Failures in doca_argp_start (unknown flag, missing argument or mandatory flag, a
 * value that does not fit its type, a callback or the validation callback failing)
 * print one line naming the flag through the SDK log (or the logger callback),
 * print the usage on stderr and return an error; Ferry never exits on an error.
 *
 * @note Not thread safe: the parser is one process-wide object meant for main().
 */
#ifndef DOCA_ARGP_H_
#define DOCA_ARGP_H_

#include <stdarg.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_log.h>

#if defined(__has_include)
#if __has_include(<doca_dev.h>)
#include <doca_dev.h>
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_devinfo;
struct doca_dev_rep;

/** Flag callback: (the parsed value, the program configuration given to doca_argp_init). */
typedef doca_error_t (*doca_argp_param_cb_t)(void *, void *);

/** Command callback: gets the program configuration. */
typedef doca_error_t (*doca_argp_cmd_cb_t)(void *);

/** Receives the DPDK part of the command line (the words before "--"). */
typedef doca_error_t (*doca_argp_dpdk_cb_t)(int argc, char **argv);

/** Checks the whole configuration once every flag was parsed. */
typedef doca_error_t (*doca_argp_validation_cb_t)(void *);

/** Opens a device named on the command line (DEVICE and DEVICE_REP flags). */
typedef doca_error_t (*doca_argp_dev_open_cb_t)(struct doca_devinfo *devinfo, void *usr_ctx, struct doca_dev **dev);

/** Receives the parser's user-facing messages instead of the SDK log. */
typedef doca_error_t (*doca_argp_logger_cb_t)(enum doca_log_level level, const char *format, va_list args);

/** What a flag's argument is; the numbers match DOCA's. */
enum doca_argp_type {
	DOCA_ARGP_TYPE_UNKNOWN = 0,
	DOCA_ARGP_TYPE_STRING,     /**< text, passed as char * */
	DOCA_ARGP_TYPE_INT,        /**< decimal or 0x-hex integer, passed as int * */
	DOCA_ARGP_TYPE_BOOLEAN,    /**< no argument; passed as bool * (true) */
	DOCA_ARGP_TYPE_DEVICE,     /**< a device, opened; passed as struct doca_argp_device_ctx * */
	DOCA_ARGP_TYPE_DEVICE_REP, /**< a representor, opened; passed as struct doca_argp_device_rep_ctx * */
	DOCA_ARGP_TYPE_DOUBLE,     /**< floating-point number, passed as double * */
};

/** One flag of the program. */
struct doca_argp_param;

/** One (sub)command of the program, with its own flags. */
struct doca_argp_cmd;

/** What a DEVICE flag hands to its callback. */
struct doca_argp_device_ctx {
	struct doca_dev *dev; /**< the opened device */
	const char *devargs;  /**< text after the device name, or NULL */
};

/** What a DEVICE_REP flag hands to its callback. */
struct doca_argp_device_rep_ctx {
	struct doca_argp_device_ctx dev_ctx; /**< the device the representor belongs to */
	struct doca_dev_rep *dev_rep;        /**< the opened representor */
};

/**
 * @brief Print the usage (built-in flags, then the program's) on stdout. Returns.
 */
DOCA_EXPERIMENTAL void doca_argp_usage(void);

/**
 * @brief Create the parser.
 * @param [in] program_name    shown in the usage; NULL takes it from argv[0].
 * @param [in] program_config  handed to every callback; may be NULL.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE when already initialized;
 *         DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_init(const char *program_name, void *program_config);

/**
 * @brief Add a flag to the program. The parser owns @p input_param from now on, also
 *        when registration fails (it is then destroyed).
 * @param [in] input_param  a flag with a name, a description, a callback and a type.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE when not initialized or already registered;
 *         DOCA_ERROR_INITIALIZATION when a mandatory field is missing;
 *         DOCA_ERROR_INVALID_VALUE for NULL or a name already taken.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_param(struct doca_argp_param *input_param);

/**
 * @brief Add a top-level command. The parser owns @p input_cmd from now on.
 * @param [in] input_cmd  a command with a name and a description.
 * @return as doca_argp_register_param().
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_cmd(struct doca_argp_cmd *input_cmd);

/**
 * @brief Replace the default -v/--version action.
 * @param [in] callback  called with (NULL, program config); it usually prints and exits,
 *                       after calling doca_argp_destroy().
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE when not initialized; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback);

/**
 * @brief Check the configuration after all flags were parsed.
 * @param [in] callback  called with the program config; its error fails doca_argp_start.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE when not initialized; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback);

/**
 * @brief Set how DEVICE and DEVICE_REP flags open the device they name (default:
 *        doca_dev_open). Called once per device flag; the program closes the device.
 * @param [in] callback  the opener: gets the matching devinfo, @p usr_ctx, and returns the device.
 * @param [in] usr_ctx   handed to it.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE when not initialized; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_dev_open_callback(doca_argp_dev_open_cb_t callback, void *usr_ctx);

/**
 * @brief Send the parser's user-facing messages to @p callback instead of the SDK log.
 * @param [in] callback  the receiver.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE when not initialized;
 *         DOCA_ERROR_ALREADY_EXIST when one is set; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_logger_callback(doca_argp_logger_cb_t callback);

/**
 * @brief Go back to logging the parser's messages through the SDK log.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE when not initialized or none was set.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_disable_logger_callback(void);

/**
 * @brief Parse the command line and call the callbacks.
 * @param [in] argc  as given to main().
 * @param [in] argv  as given to main().
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE when not initialized;
 *         DOCA_ERROR_NOT_SUPPORTED for an unknown flag or an unsupported feature;
 *         DOCA_ERROR_INVALID_VALUE for a bad or missing value, a missing mandatory flag,
 *         a repeated flag without multiplicity, a device that matches none or several;
 *         DOCA_ERROR_IO_FAILED for a JSON file that cannot be read or is not JSON;
 *         any error a callback returns.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_start(int argc, char **argv);

/**
 * @brief Free the parser and every flag and command it owns.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE when not initialized.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_destroy(void);

/**
 * @brief Mark the program as a DPDK one: the words before "--" go to @p callback
 *        (with argv[0] in front), the words after it are parsed as flags.
 * @param [in] callback  receives the DPDK words.
 */
DOCA_EXPERIMENTAL void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback);

/**
 * @brief Create a flag, to be filled by the setters and registered.
 * @param [out] param  the new flag.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_NO_MEMORY;
 *         DOCA_ERROR_BAD_STATE when the parser is not initialized.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_param_create(struct doca_argp_param **param);

/**
 * @brief Set the short name, used as "-name".
 * @param [in] param  the flag (not yet registered).
 * @param [in] name   copied.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name);

/**
 * @brief Set the long name, used as "--name" or "--name=value".
 * @param [in] param  the flag (not yet registered).
 * @param [in] name   copied.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name);

/**
 * @brief Describe the argument in the usage, e.g. "<path>".
 * @param [in] param      the flag (not yet registered).
 * @param [in] arguments  copied.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments);

/**
 * @brief Set the usage text of the flag (mandatory).
 * @param [in] param        the flag (not yet registered).
 * @param [in] description  copied.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_description(struct doca_argp_param *param, const char *description);

/**
 * @brief Set what runs when the flag is seen (mandatory).
 * @param [in] param     the flag (not yet registered).
 * @param [in] callback  gets (value, program config).
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback);

/**
 * @brief Set the type of the argument (mandatory).
 * @param [in] param  the flag (not yet registered).
 * @param [in] type   one of enum doca_argp_type except UNKNOWN.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type);

/**
 * @brief Make the flag required; doca_argp_start fails without it.
 * @param [in] param  the flag (not yet registered).
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_mandatory(struct doca_argp_param *param);

/**
 * @brief Keep the flag out of JSON configuration files.
 * @param [in] param  the flag (not yet registered).
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_cli_only(struct doca_argp_param *param);

/**
 * @brief Allow the flag more than once; the callback runs for each.
 * @param [in] param  the flag (not yet registered).
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_multiplicity(struct doca_argp_param *param);

/**
 * @brief The flag must be the only program flag on the command line.
 * @param [in] param  the flag (not yet registered).
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_singular(struct doca_argp_param *param);

/**
 * @brief Let subcommands of the flag's command accept it too.
 * @param [in] param  the flag (not yet registered).
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_inherited(struct doca_argp_param *param);

/**
 * @brief Leave the flag out of the usage (it still works).
 * @param [in] param  the flag (not yet registered).
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_hidden(struct doca_argp_param *param);

/**
 * @brief Free a flag that was not registered.
 * @param [in] param  the flag.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE when registered.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_param_destroy(struct doca_argp_param *param);

/**
 * @brief Create a command, to be filled by the setters and registered.
 * @param [out] cmd  the new command.
 * @return as doca_argp_param_create().
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_cmd_create(struct doca_argp_cmd **cmd);

/**
 * @brief Set the word that selects the command (mandatory).
 * @param [in] cmd   the command (not yet registered).
 * @param [in] name  copied.
 */
DOCA_EXPERIMENTAL void doca_argp_cmd_set_name(struct doca_argp_cmd *cmd, const char *name);

/**
 * @brief Set the usage text of the command (mandatory).
 * @param [in] cmd          the command (not yet registered).
 * @param [in] description  copied.
 */
DOCA_EXPERIMENTAL void doca_argp_cmd_set_description(struct doca_argp_cmd *cmd, const char *description);

/**
 * @brief Set what runs, with the program config, once the command is selected.
 * @param [in] cmd       the command (not yet registered).
 * @param [in] callback  the action.
 */
DOCA_EXPERIMENTAL void doca_argp_cmd_set_callback(struct doca_argp_cmd *cmd, doca_argp_cmd_cb_t callback);

/**
 * @brief Leave the command out of the usage.
 * @param [in] cmd  the command (not yet registered).
 */
DOCA_EXPERIMENTAL void doca_argp_cmd_set_hidden(struct doca_argp_cmd *cmd);

/**
 * @brief Add a flag to a command; the command owns it from now on.
 * @param [in] cmd          the command (not yet registered).
 * @param [in] input_param  the flag.
 * @return as doca_argp_register_param().
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_cmd_register_param(struct doca_argp_cmd *cmd,
							    struct doca_argp_param *input_param);

/**
 * @brief Add a subcommand to a command; the command owns it from now on.
 * @param [in] cmd        the parent (not yet registered).
 * @param [in] input_cmd  the subcommand.
 * @return as doca_argp_register_cmd().
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_cmd_register_cmd(struct doca_argp_cmd *cmd, struct doca_argp_cmd *input_cmd);

/**
 * @brief Free a command that was not registered, with its flags and subcommands.
 * @param [in] cmd  the command.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE when registered.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_cmd_destroy(struct doca_argp_cmd *cmd);

/**
 * @brief The application log level: the one given with -l, else the global lower limit.
 * @param [out] log_level  the level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_get_log_level(int *log_level);

/**
 * @brief The SDK log level: the one given with --sdk-log-level, else the global SDK limit.
 * @param [out] log_level  the level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_get_sdk_log_level(int *log_level);

/**
 * @brief Ignore unknown keys in JSON configuration files.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE when not initialized.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_disable_pedantic_config_parsing(void);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ARGP_H_ */
