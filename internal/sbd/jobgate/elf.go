package jobgate

import "encoding/binary"

// The ELF constants the image uses (debug/elf's values; that package is not
// linked for them: it brings zlib and zstd, whose initialisation every
// command of the binary would pay). The tests read the image with
// debug/elf.
const (
	elfClass64   = 2          // ELFCLASS64
	elfData2LSB  = 1          // ELFDATA2LSB
	elfVersion   = 1          // EV_CURRENT
	elfOSABINone = 0          // ELFOSABI_NONE
	elfTypeExec  = 2          // ET_EXEC
	elfPTLoad    = 1          // PT_LOAD
	elfPTGNU     = 0x6474e551 // PT_GNU_STACK
	elfPFX       = 1          // PF_X
	elfPFW       = 2          // PF_W
	elfPFR       = 4          // PF_R
)

// base is where the image is loaded: a fixed address (ELF type EXEC), as
// for any static program; the code is position-independent anyway.
const base = 0x400000

// ELF64 sizes: the file header and a program header.
const (
	ehdrSize = 64
	phdrSize = 56
	nPhdr    = 2
	codeOff  = ehdrSize + nPhdr*phdrSize
)

// Image is the gate as a static ELF executable: the header, one loadable
// segment (the whole file, read and execute) and a non-executable stack,
// then the code, whose first byte is the entry point.
func Image() []byte {
	img := make([]byte, codeOff+len(code))
	le := binary.LittleEndian
	copy(img, "\x7fELF")
	img[4] = elfClass64 // e_ident[EI_CLASS]
	img[5] = elfData2LSB
	img[6] = elfVersion
	img[7] = elfOSABINone
	le.PutUint16(img[16:], elfTypeExec)
	le.PutUint16(img[18:], machine)
	le.PutUint32(img[20:], elfVersion)
	le.PutUint64(img[24:], base+codeOff) // e_entry
	le.PutUint64(img[32:], ehdrSize)     // e_phoff
	le.PutUint64(img[40:], 0)            // e_shoff: no sections
	le.PutUint32(img[48:], 0)            // e_flags
	le.PutUint16(img[52:], ehdrSize)
	le.PutUint16(img[54:], phdrSize)
	le.PutUint16(img[56:], nPhdr)
	// e_shentsize, e_shnum, e_shstrndx: 0.

	load := img[ehdrSize:]
	le.PutUint32(load[0:], elfPTLoad)
	le.PutUint32(load[4:], elfPFR|elfPFX)
	le.PutUint64(load[8:], 0)                 // p_offset
	le.PutUint64(load[16:], base)             // p_vaddr
	le.PutUint64(load[24:], base)             // p_paddr
	le.PutUint64(load[32:], uint64(len(img))) // p_filesz
	le.PutUint64(load[40:], uint64(len(img))) // p_memsz
	le.PutUint64(load[48:], 0x1000)           // p_align

	stack := img[ehdrSize+phdrSize:]
	le.PutUint32(stack[0:], elfPTGNU)
	le.PutUint32(stack[4:], elfPFR|elfPFW)
	le.PutUint64(stack[48:], 16) // p_align

	copy(img[codeOff:], code)
	return img
}
