#ifndef CSENTIO_LINEAR_ALGEBRA_SHIM_H
#define CSENTIO_LINEAR_ALGEBRA_SHIM_H
// CBLAS from OpenBLAS; LAPACKE is packaged separately on Debian (openblas.pc says NO_LAPACKE=1).
#include <cblas.h>
#include <lapacke.h>
#endif
