// The device set's kernels built for the CPU device against the CUDA
// stand-in: the same source as the CUDA build (filter_kernels_cpu.cpp's twin
// for the set).
#include "set_kernels.cu"
