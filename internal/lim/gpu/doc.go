// Package gpu finds a host's GPUs for its LIM: from the fake inventory
// that lsf.conf's BASALT_GPU_INVENTORY names (a file of "HOST NGPUS MODEL
// MEMORY_MB" lines, for tests and for machines without GPUs), else from
// nvidia-smi when it is installed (--query-gpu=index,name,memory.total
// --format=csv,noheader,nounits), else none. Models are named as LSF's
// gpu_model shows them: the product name without blanks, '-' as '_'.
package gpu
