/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argp_device.c - DEVICE and DEVICE_REP flags: finding and opening the device (and
 * representor) a flag names, then handing them to the flag's callback.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_dev.h>

#include "argp/argp_priv.h"

/* Copies text a callback may keep; freed by doca_argp_destroy. */
static const char *keep_string(const char *text)
{
	size_t len = strlen(text);
	struct kept_string *k = malloc(sizeof(*k) + len + 1);

	if (k == NULL)
		return NULL;
	memcpy(k->text, text, len + 1);
	k->next = argp.kept;
	argp.kept = k;
	return k->text;
}

/* "03:00.0", "0000:03:00.0": a bus:device.function address rather than a name. */
static bool looks_like_pci_addr(const char *ident)
{
	return strchr(ident, ':') != NULL && strchr(ident, '.') != NULL;
}

static bool devinfo_matches(struct doca_devinfo *devinfo, const char *ident, bool by_pci)
{
	char name[DOCA_DEVINFO_IFACE_NAME_SIZE];
	uint8_t equal = 0;

	if (by_pci)
		return doca_devinfo_is_equal_pci_addr(devinfo, ident, &equal) == DOCA_SUCCESS && equal != 0;
	if (doca_devinfo_get_ibdev_name(devinfo, name, DOCA_DEVINFO_IBDEV_NAME_SIZE) == DOCA_SUCCESS &&
	    strcmp(name, ident) == 0)
		return true;
	return doca_devinfo_get_iface_name(devinfo, name, sizeof(name)) == DOCA_SUCCESS && strcmp(name, ident) == 0;
}

/* Opens through the program's dev-open callback when it registered one. */
static doca_error_t open_devinfo(struct doca_devinfo *devinfo, const char *shown, struct doca_dev **dev)
{
	doca_error_t err;

	*dev = NULL;
	if (argp.dev_open_cb == NULL)
		err = doca_dev_open(devinfo, dev);
	else
		err = argp.dev_open_cb(devinfo, argp.dev_open_ctx, dev);
	if (err == DOCA_SUCCESS && *dev == NULL)
		err = DOCA_ERROR_UNEXPECTED;
	if (err != DOCA_SUCCESS)
		return ARGP_RULE(err, "doca_argp_start: flag '%s': %s failed to open the device: %s", shown,
				 argp.dev_open_cb != NULL ? "the dev-open callback" : "doca_dev_open",
				 doca_error_get_descr(err));
	return DOCA_SUCCESS;
}

/*
 * Opens the one device named by @p ident: "pci/<address>", a bare PCI address, an
 * IB device name or a network interface name. No match or several are errors.
 */
static doca_error_t open_device(const char *ident, const char *shown, struct doca_dev **dev)
{
	struct doca_devinfo **list = NULL, *found = NULL;
	uint32_t nb = 0, matches = 0;
	bool by_pci = strncmp(ident, "pci/", 4) == 0;
	const char *key = by_pci ? ident + 4 : ident;
	doca_error_t err;

	by_pci = by_pci || looks_like_pci_addr(ident);
	if (key[0] == '\0')
		return ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: flag '%s' names no device", shown);
	err = doca_devinfo_create_list(&list, &nb);
	if (err != DOCA_SUCCESS)
		return ARGP_RULE(err, "doca_argp_start: flag '%s': no device list: %s", shown,
				 doca_error_get_descr(err));
	for (uint32_t i = 0; i < nb; i++)
		if (devinfo_matches(list[i], key, by_pci)) {
			found = found != NULL ? found : list[i];
			matches++;
		}
	if (matches == 0)
		err = ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
				"doca_argp_start: flag '%s': no device is '%s' (give pci/<address>, an IB device or an "
				"interface name)",
				shown, ident);
	else if (matches > 1)
		err = ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
				"doca_argp_start: flag '%s': %u devices match '%s'; name one by pci/<address>", shown,
				matches, ident);
	else
		err = open_devinfo(found, shown, dev);
	doca_devinfo_destroy_list(list);
	return err;
}

static bool rep_matches(struct doca_devinfo_rep *rep, const char *name)
{
	char text[DOCA_DEVINFO_REP_VUID_SIZE > DOCA_DEVINFO_IFACE_NAME_SIZE ? DOCA_DEVINFO_REP_VUID_SIZE
									    : DOCA_DEVINFO_IFACE_NAME_SIZE];
	uint8_t equal = 0;

	if (looks_like_pci_addr(name))
		return doca_devinfo_rep_is_equal_pci_addr(rep, name, &equal) == DOCA_SUCCESS && equal != 0;
	if (doca_devinfo_rep_get_iface_name(rep, text, DOCA_DEVINFO_IFACE_NAME_SIZE) == DOCA_SUCCESS &&
	    strcmp(text, name) == 0)
		return true;
	return doca_devinfo_rep_get_vuid(rep, text, DOCA_DEVINFO_REP_VUID_SIZE) == DOCA_SUCCESS &&
	       strcmp(text, name) == 0;
}

/* Opens the representor @p name ("pf0hpf", "pf0vf1", its vuid or PCI address) of @p dev. */
static doca_error_t open_rep(struct doca_dev *dev, const char *name, const char *shown, struct doca_dev_rep **rep)
{
	struct doca_devinfo_rep **list = NULL, *found = NULL;
	uint32_t nb = 0;
	doca_error_t err;

	err = doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, &list, &nb);
	if (err != DOCA_SUCCESS)
		return ARGP_RULE(err, "doca_argp_start: flag '%s': the device has no representor list: %s", shown,
				 doca_error_get_descr(err));
	for (uint32_t i = 0; i < nb && found == NULL; i++)
		if (rep_matches(list[i], name))
			found = list[i];
	if (found == NULL)
		err = ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
				"doca_argp_start: flag '%s': the device has no representor '%s'", shown, name);
	else {
		err = doca_dev_rep_open(found, rep);
		if (err != DOCA_SUCCESS)
			err = ARGP_RULE(err, "doca_argp_start: flag '%s': doca_dev_rep_open failed: %s", shown,
					doca_error_get_descr(err));
	}
	doca_devinfo_rep_destroy_list(list);
	return err;
}

/* Cuts "<part>,<rest>" at the first comma into @p part; *rest is after it or NULL. */
static doca_error_t split_value(const char *value, char *part, size_t size, const char **rest, const char *shown)
{
	const char *comma = strchr(value, ',');
	size_t len = comma != NULL ? (size_t)(comma - value) : strlen(value);

	if (len >= size)
		return ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: flag '%s': '%.*s...' is too long", shown,
				 32, value);
	memcpy(part, value, len);
	part[len] = '\0';
	*rest = comma != NULL ? comma + 1 : NULL;
	return DOCA_SUCCESS;
}

/*
 * DEVICE: "<device>[,<devargs>]"; DEVICE_REP: "<device>,<representor>[,<devargs>]".
 * The callback owns the opened device (and representor) from the call on; when
 * anything fails before it runs, what was opened here is closed again.
 */
doca_error_t argp_call_device_param(struct parse_ctx *ctx, struct doca_argp_param *p, const char *value,
				    const char *shown)
{
	char ident[256], rep_name[DOCA_DEVINFO_REP_VUID_SIZE];
	const char *rest = NULL, *devargs = NULL;
	struct doca_argp_device_rep_ctx rep_ctx = {0};
	doca_error_t err;

	err = split_value(value, ident, sizeof(ident), &rest, shown);
	if (err == DOCA_SUCCESS && p->type == DOCA_ARGP_TYPE_DEVICE_REP) {
		if (rest == NULL || rest[0] == '\0' || rest[0] == ',')
			return ARGP_RULE(
				DOCA_ERROR_INVALID_VALUE,
				"doca_argp_start: flag '%s' takes <device>,<representor> (e.g. pci/03:00.0,pf0hpf), "
				"not '%s'",
				shown, value);
		err = split_value(rest, rep_name, sizeof(rep_name), &rest, shown);
	}
	if (err != DOCA_SUCCESS)
		return err;
	if (rest != NULL && rest[0] != '\0') {
		devargs = keep_string(rest);
		if (devargs == NULL)
			return ARGP_RULE(DOCA_ERROR_NO_MEMORY, "doca_argp_start: flag '%s': no memory for devargs",
					 shown);
	}
	err = open_device(ident, shown, &rep_ctx.dev_ctx.dev);
	if (err != DOCA_SUCCESS)
		return err;
	rep_ctx.dev_ctx.devargs = devargs;
	if (p->type == DOCA_ARGP_TYPE_DEVICE)
		return argp_invoke_param(ctx, p, &rep_ctx.dev_ctx, shown);
	err = open_rep(rep_ctx.dev_ctx.dev, rep_name, shown, &rep_ctx.dev_rep);
	if (err != DOCA_SUCCESS) {
		doca_dev_close(rep_ctx.dev_ctx.dev);
		return err;
	}
	return argp_invoke_param(ctx, p, &rep_ctx, shown);
}
