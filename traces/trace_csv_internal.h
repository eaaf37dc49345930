/* trace_csv_internal.h — private to traces/: the reference's 101 CSV
 * columns as one X-macro table, shared by the writer (trace_csv_write.c) and
 * the reader (trace_csv_read.c) so the two directions cannot drift. */
#ifndef NPUSIM_TRACE_CSV_INTERNAL_H
#define NPUSIM_TRACE_CSV_INTERNAL_H

#include "traces/trace_csv.h"

#define DVFS_COLS(C, N) \
    X(DVFS_POL_##C, "DVFS " N " Policy") \
    X(DVFS_V_##C, "DVFS " N " Voltage (V)") \
    X(DVFS_F_##C, "DVFS " N " Frequency (GHz)")
#define DVFS_TAIL_COLS(C, N) \
    X(DVFS_SCALE_##C, "DVFS " N " Scaling Time (ns)") \
    X(DVFS_EFF_##C, "DVFS " N " Power Efficiency (%)")

/* Reference column order (chipsim.md §10). */
#define COLUMNS \
    X(FUSION, "Fusion index") X(DESC, "Description") X(CONFIG, "Config") X(NAME, "Name") \
    X(OPTYPE, "OpType") X(COUNT, "Count") X(BOUND, "Bounded-by") X(EXE, "Execution time") \
    X(COMPUTE, "Compute time") X(MEM, "Memory time") X(ICI, "ICI/NVLink time") \
    X(ICI_OUT, "ICI/NVLink outbound traffic") X(ICI_IN, "ICI/NVLink inbound traffic") \
    X(DCN_AGG, "Aggregated DCN time") X(DCN0, "DCN 0 time") X(PCIE, "PCIe time") \
    X(TEMP_MEM, "Temporary memory size") X(PERS_MEM, "Persistent memory size") \
    X(SA, "MXU time") X(VU, "VPU time") X(TRANSPOSE, "Transpose time") X(PERMUTE, "Permute time") \
    X(BYTES, "Bytes accessed") X(IN_SHAPES, "Input Tensor Shapes") \
    X(OUT_SHAPES, "Output Tensor Shapes") X(FLOPS, "FLOP Count") X(OP_NAME, "Op Name") \
    X(OPCODE, "Op Code") X(WEIGHT, "Weight Size") X(OUTPUT_SHAPE, "Output Shape") \
    X(PARSED, "parsed_op_type") X(DIM_LABELS, "dim_labels") X(TILE_SHAPES, "tile_shapes") \
    X(NUM_TILES, "num_tiles") X(MAX_VMEM, "max_vmem_demand_bytes") X(NUM_MXU, "num_mxu_ops") \
    X(EIN_B, "einsum_B_size") X(EIN_M, "einsum_M_size") X(EIN_N, "einsum_N_size") \
    X(EIN_K, "einsum_K_size") X(SOFTMAX, "vu_softmax_time_ns") \
    X(COMPUTE_NS, "Compute Time (ns)") X(BYTES2, "Bytes Accessed") \
    DVFS_COLS(SA, "SA") DVFS_COLS(VU, "VU") DVFS_COLS(SRAM, "SRAM") DVFS_COLS(HBM, "HBM") \
    DVFS_COLS(ICI, "ICI") \
    X(VMEM, "Vmem time") \
    X(ST_SA, "static_energy_sa_J") X(ST_VU, "static_energy_vu_J") \
    X(ST_SRAM, "static_energy_sram_J") X(ST_HBM, "static_energy_hbm_J") \
    X(ST_ICI, "static_energy_ici_J") X(ST_OTHER, "static_energy_other_J") \
    X(DY_SA, "dynamic_energy_sa_J") X(DY_VU, "dynamic_energy_vu_J") \
    X(DY_SRAM, "dynamic_energy_sram_J") X(DY_HBM, "dynamic_energy_hbm_J") \
    X(DY_ICI, "dynamic_energy_ici_J") X(DY_OTHER, "dynamic_energy_other_J") \
    X(ST_SUM, "static_energy_J") X(DY_SUM, "dynamic_energy_J") X(TOT_SUM, "total_energy_J") \
    X(ST_W, "static_power_W") X(DY_W, "dynamic_power_W") X(TOT_W, "total_power_W") \
    X(SETPM_SA, "num_setpm_sa") X(SETPM_VU, "num_setpm_vu") X(SETPM_SRAM, "num_setpm_sram") \
    X(SETPM_HBM, "num_setpm_hbm") X(SETPM_ICI, "num_setpm_ici") \
    X(TFLOPS, "tflops_per_sec") X(HBM_BW, "hbm_bw_GBps") X(FLOPS_UTIL, "flops_util") \
    X(HBM_UTIL, "hbm_bw_util") \
    DVFS_TAIL_COLS(SA, "SA") DVFS_TAIL_COLS(VU, "VU") DVFS_TAIL_COLS(SRAM, "SRAM") \
    DVFS_TAIL_COLS(HBM, "HBM") DVFS_TAIL_COLS(ICI, "ICI") \
    X(ACT_SA, "DVFS SA Activity Factor") X(ACT_VU, "DVFS VU Activity Factor") \
    X(ACT_SRAM, "DVFS SRAM Activity Factor") X(ACT_HBM, "DVFS HBM Activity Factor") \
    X(ACT_ICI, "DVFS ICI Activity Factor")

enum col {
#define X(id, name) C_##id,
    COLUMNS
#undef X
    C_COUNT_ALL
};

_Static_assert(C_COUNT_ALL == TRACE_CSV_NCOLS, "column table must have 101 entries");

static const char PHASE_COLUMN[] = "Phase";
/* Written after Phase only when some op has a non-zero timing group. */
static const char GROUP_COLUMN[] = "Group";

#endif
