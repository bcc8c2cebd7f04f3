# The job gate for linux/amd64 (GNU as, AT&T syntax). code_amd64.go holds
# the bytes of its .text; go generate (gen.go) assembles this file again,
# and TestCodeMatchesSource checks that the two agree. It lives in testdata
# because the go tool would take a .S file in the package for its own
# assembler.
#
# argv: [shell, jobfile, path, arg0, args...]  (path and after: optional)
#   1. Wait for "go\n" on descriptor 3; anything else: exit 125.
#   2. Close descriptor 3.
#   3. Write the process ID into every LS_JOBPID= and LSB_JOBPIDS=
#      variable of the environment whose value is long enough (the
#      shepherd puts a placeholder there).
#   4. With a path: execve(path, [arg0, args...]).
#   5. Else, or when that failed: execve(shell, [shell, jobfile]).
#   6. Exit 127.
# Only the stack and the environment strings (which the kernel placed on
# it) are written; the code uses no data section and no libc.

	.text
	.globl	_start
_start:
	mov	(%rsp), %r12		# argc
	lea	8(%rsp), %r13		# argv
	lea	16(%rsp,%r12,8), %r14	# envp: after argv's NULL
	sub	$32, %rsp		# buffer: rsp..rsp+32
	mov	$127, %edi
	cmp	$2, %r12
	jb	exit			# no job file: nothing to run

	xor	%eax, %eax		# read(3, buf, 3)
	mov	$3, %edi
	mov	%rsp, %rsi
	mov	$3, %edx
	syscall
	mov	$125, %edi
	cmp	$3, %rax
	jne	exit
	cmpw	$0x6f67, (%rsp)		# "go"
	jne	exit
	cmpb	$10, 2(%rsp)		# "\n"
	jne	exit
	mov	$3, %eax		# close(3)
	mov	$3, %edi
	syscall

	mov	$39, %eax		# getpid()
	syscall
	lea	32(%rsp), %rdi		# decimal digits, backwards from the end
	mov	$10, %ecx
digit:
	xor	%edx, %edx
	div	%rcx
	add	$'0', %dl
	dec	%rdi
	mov	%dl, (%rdi)
	test	%rax, %rax
	jnz	digit
	mov	%rdi, %r15		# r15: the digits
	lea	32(%rsp), %rbx
	sub	%rdi, %rbx		# rbx: their number

	mov	%r14, %r8		# r8: the next environment entry
env:
	mov	(%r8), %r9		# r9: this entry
	test	%r9, %r9
	jz	run
	add	$8, %r8
	mov	%r9, %rsi		# LS_JOBPID=?
	lea	key1(%rip), %rdi
	mov	$10, %ecx
	repe cmpsb
	je	value
	mov	%r9, %rsi		# LSB_JOBPIDS=?
	lea	key2(%rip), %rdi
	mov	$12, %ecx
	repe cmpsb
	jne	env
value:					# rsi: the value
	xor	%ecx, %ecx
length:
	cmpb	$0, (%rsi,%rcx)
	je	fits
	inc	%rcx
	jmp	length
fits:
	cmp	%rbx, %rcx
	jb	env			# too short for the PID: left alone
	mov	%rsi, %rdi
	mov	%r15, %rsi
	mov	%rbx, %rcx
	rep movsb
	movb	$0, (%rdi)
	jmp	env

run:
	cmp	$4, %r12
	jb	shell
	mov	16(%r13), %rdi		# execve(argv[2], &argv[3], envp)
	lea	24(%r13), %rsi
	mov	%r14, %rdx
	mov	$59, %eax
	syscall
shell:
	movq	$0, 16(%r13)		# execve(argv[0], [argv[0], argv[1]], envp)
	mov	(%r13), %rdi
	mov	%r13, %rsi
	mov	%r14, %rdx
	mov	$59, %eax
	syscall
	mov	$127, %edi
exit:
	mov	$231, %eax		# exit_group(edi)
	syscall

key1:	.ascii	"LS_JOBPID="
key2:	.ascii	"LSB_JOBPIDS="
