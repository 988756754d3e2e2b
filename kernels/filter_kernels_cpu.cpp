// The filter kernels built for the CPU device (Thrust's CPP system) against
// the CUDA stand-in: the same source as the CUDA build, so the tests that
// run without a GPU run the kernels' own code.
#include "filter_kernels.cu"
