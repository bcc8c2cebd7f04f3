// Package gpureq is LSF 10.1's GPU requirement language, the value of
// bsub -gpu, of LSB_GPU_REQ in lsf.conf and of GPU_REQ:
//
//	"-" | "[num=N[/task|/host]][:mode=shared|exclusive_process]
//	       [:mps=yes[,shared][,nocvd]|no|per_socket[,...]|per_gpu[,...]]
//	       [:j_exclusive=yes|no][:gmodel=name]"
//
// Parse reads one string (errors carry the byte offset of the faulty
// option), Merge lays a job's options over a default one by one as LSF
// merges them, Levels.Resolve merges the job's -gpu over its application
// profile's GPU_REQ over its queue's over LSB_GPU_REQ, and Effective fills what is still unset with LSF's default
// "num=1:mode=shared:mps=no:j_exclusive=no" (exclusive_process implies
// j_exclusive=yes). LSF's other options (aff, block, gpack, glink,
// gvendor, gtile, gmem) are refused by name: Basalt does not schedule
// them, and a silently ignored option would mislead. Pure.
package gpureq
