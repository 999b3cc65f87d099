/* gst-cuda-vision benchmark: the physical floors, measured on this machine.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_BENCH_FLOOR_H
#define CV_BENCH_FLOOR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct
{
  char device[256];
  double h2d_gbps;              /* pinned host -> device, GB/s (1e9 bytes) */
  double d2h_gbps;              /* device -> pinned host */
  double duplex_gbps;           /* H2D and D2H at once, sum of both */
  double d2d_gbps;              /* device copy, bytes read + written */
} CvBenchFloor;

/* Measure with cudaMemcpyAsync of `bytes` (the best of `reps`) on `device`;
 * each PCIe figure (h2d, d2h, duplex) is the better of one copy of
 * `bytes` and, where `bytes` holds at least two 2 MiB pieces, those
 * pieces (`bytes` rounded down to 2 MiB) queued back to back.
 * Returns 0, or the cudaError_t; device[] then holds the error text. */
int cv_bench_measure_floor (int device, size_t bytes, int reps,
    CvBenchFloor * out);

/* CUDA devices visible (0 without a driver or device). */
int cv_bench_device_count (void);

/* The PCI bus id of a CUDA device ("0000:3b:00.0"), for NVML; 0 or -1. */
int cv_bench_pci_bus_id (int device, char *buf, int len);

#ifdef __cplusplus
}
#endif
#endif
