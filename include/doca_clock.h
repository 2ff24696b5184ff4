/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file doca_clock.h
 * @brief DOCA Clock: read the device's clocks and the host's, alone or as a
 * cross-timestamp (two clocks read as close together as possible).
 *
 * Use:
 *
 *   doca_clock_cap_nic_real_time_is_supported(doca_dev_as_devinfo(dev))   (and the other caps)
 *   doca_clock_create(dev, &clock)
 *   doca_clock_get_timestamp(clock, DOCA_CLOCK_NIC_REAL_TIME, &ts)
 *   doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_MONOTONIC, DOCA_CLOCK_NIC_REAL_TIME,
 *                                 &host_ts, &nic_ts, &margin)
 *   doca_clock_destroy(clock)
 *
 * On Ferry the NIC is emulated, and so are its clocks; each is one of the
 * host's POSIX clocks:
 *
 *   DOCA_CLOCK_NIC_FREE_RUNNING  CLOCK_MONOTONIC_RAW (never stepped nor slewed)
 *   DOCA_CLOCK_NIC_REAL_TIME     CLOCK_REALTIME (as if PTP kept the NIC on the host's time)
 *   DOCA_CLOCK_NIC_DPA_TIMER     CLOCK_MONOTONIC
 *
 * Every Ferry device supports all three. DOCA_CLOCK_HOST_COUNTER_CYCLES is
 * the CPU's raw counter (the TSC on x86-64, CNTVCT_EL0 on aarch64), returned
 * in union doca_clock_timespec_t's counter; every other clock fills its ts.
 *
 * Clock ids are single bits. An argument of zero or of several bits is no
 * clock id (DOCA_ERROR_INVALID_VALUE); a single bit Ferry does not know, or
 * the cycle counter on a CPU without one, is DOCA_ERROR_NOT_SUPPORTED.
 *
 * Threading: a clock may be read from any number of threads at once;
 * create and destroy are not concurrent with reads of the same clock.
 */
#ifndef DOCA_CLOCK_H_
#define DOCA_CLOCK_H_

#include <stdint.h>
#include <time.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_devinfo;

/** A clock handle, bound to one open device. */
struct doca_clock;

/** The NIC's free-running clock (Ferry: CLOCK_MONOTONIC_RAW). */
#define DOCA_CLOCK_NIC_FREE_RUNNING    UINT64_C(0x1)
/** The NIC's real-time clock (Ferry: CLOCK_REALTIME). */
#define DOCA_CLOCK_NIC_REAL_TIME       UINT64_C(0x2)
/** The NIC's DPA timer (Ferry: CLOCK_MONOTONIC). */
#define DOCA_CLOCK_NIC_DPA_TIMER       UINT64_C(0x100)
/** The host CPU's raw cycle counter; read into doca_clock_timespec_t.counter. */
#define DOCA_CLOCK_HOST_COUNTER_CYCLES UINT64_C(0x10000)
/** The host's CLOCK_REALTIME. */
#define DOCA_CLOCK_HOST_REAL_TIME      UINT64_C(0x20000)
/** The host's CLOCK_MONOTONIC. */
#define DOCA_CLOCK_HOST_MONOTONIC      UINT64_C(0x40000)
/** The host's CLOCK_MONOTONIC_RAW. */
#define DOCA_CLOCK_HOST_MONOTONIC_RAW  UINT64_C(0x80000)

/** One reading: counter for DOCA_CLOCK_HOST_COUNTER_CYCLES, ts for every other clock. */
union doca_clock_timespec_t {
	struct timespec ts; /**< seconds and nanoseconds */
	uint64_t counter;   /**< cycles */
};

/**
 * @brief Whether a device has a NIC free-running clock.
 * @param [in] devinfo  a device of the device list.
 * @return DOCA_SUCCESS (every Ferry device); DOCA_ERROR_INVALID_VALUE when
 *         @p devinfo is NULL or no device of this machine.
 */
DOCA_EXPERIMENTAL doca_error_t doca_clock_cap_nic_free_running_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Whether a device has a NIC real-time clock.
 * @param [in] devinfo  a device of the device list.
 * @return as doca_clock_cap_nic_free_running_is_supported.
 */
DOCA_EXPERIMENTAL doca_error_t doca_clock_cap_nic_real_time_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Whether a device has a DPA timer.
 * @param [in] devinfo  a device of the device list.
 * @return as doca_clock_cap_nic_free_running_is_supported.
 */
DOCA_EXPERIMENTAL doca_error_t doca_clock_cap_nic_dpa_timer_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Create a clock handle for an open device.
 * @param [in] dev     an open device; it stays in use (doca_dev_close answers
 *                     DOCA_ERROR_IN_USE) until the clock is destroyed.
 * @param [out] clock  the new handle.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a device that is
 *         not open; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_clock_create(const struct doca_dev *dev, struct doca_clock **clock);

/**
 * @brief Destroy a clock handle and release its device.
 * @param [in] clock  from doca_clock_create.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_clock_destroy(struct doca_clock *clock);

/**
 * @brief Read one clock.
 * @param [in] clock       the handle.
 * @param [in] clock_type  one DOCA_CLOCK_* id.
 * @param [out] clock_ts   the reading (counter for the cycle counter, else ts).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an id of zero or
 *         several bits; DOCA_ERROR_NOT_SUPPORTED for an unknown id (or the cycle
 *         counter on a CPU without one); DOCA_ERROR_OPERATING_SYSTEM when the
 *         system refuses the read.
 */
DOCA_EXPERIMENTAL doca_error_t doca_clock_get_timestamp(const struct doca_clock *clock, uint64_t clock_type,
							union doca_clock_timespec_t *clock_ts);

/**
 * @brief Read a clock and a NIC clock at (nearly) one instant.
 *
 * Ferry reads the primary clock, the NIC clock, and the primary again, keeps
 * the tightest of a few such brackets, and reports the primary's value half
 * way through it. The true primary value at the NIC reading then lies within
 * *error_margin_nsecs of the one reported. When both ids are the same clock
 * underneath (DOCA_CLOCK_HOST_MONOTONIC_RAW and DOCA_CLOCK_NIC_FREE_RUNNING,
 * say) it is read once and the margin is 0.
 *
 * @param [in] clock               the handle.
 * @param [in] primary_clock_type  any DOCA_CLOCK_* id.
 * @param [in] nic_clock_type      a NIC clock id (DOCA_CLOCK_NIC_*).
 * @param [out] primary_clock_ts   the primary's reading.
 * @param [out] nic_clock_ts       the NIC clock's reading.
 * @param [out] error_margin_nsecs the uncertainty, in the primary's unit:
 *                                 cycles when it is DOCA_CLOCK_HOST_COUNTER_CYCLES,
 *                                 else nanoseconds.
 * @return as doca_clock_get_timestamp; also DOCA_ERROR_INVALID_VALUE when
 *         @p nic_clock_type is a host clock.
 */
DOCA_EXPERIMENTAL doca_error_t doca_clock_get_crosstimestamp(const struct doca_clock *clock,
							     uint64_t primary_clock_type, uint64_t nic_clock_type,
							     union doca_clock_timespec_t *primary_clock_ts,
							     union doca_clock_timespec_t *nic_clock_ts,
							     uint64_t *error_margin_nsecs);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DOCA_CLOCK_H_ */
