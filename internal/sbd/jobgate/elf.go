package jobgate

import (
	"debug/elf"
	"encoding/binary"
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
	copy(img, elf.ELFMAG)
	img[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	img[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	img[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	img[elf.EI_OSABI] = byte(elf.ELFOSABI_NONE)
	le.PutUint16(img[16:], uint16(elf.ET_EXEC))
	le.PutUint16(img[18:], uint16(machine))
	le.PutUint32(img[20:], uint32(elf.EV_CURRENT))
	le.PutUint64(img[24:], base+codeOff) // e_entry
	le.PutUint64(img[32:], ehdrSize)     // e_phoff
	le.PutUint64(img[40:], 0)            // e_shoff: no sections
	le.PutUint32(img[48:], 0)            // e_flags
	le.PutUint16(img[52:], ehdrSize)
	le.PutUint16(img[54:], phdrSize)
	le.PutUint16(img[56:], nPhdr)
	// e_shentsize, e_shnum, e_shstrndx: 0.

	load := img[ehdrSize:]
	le.PutUint32(load[0:], uint32(elf.PT_LOAD))
	le.PutUint32(load[4:], uint32(elf.PF_R|elf.PF_X))
	le.PutUint64(load[8:], 0)                 // p_offset
	le.PutUint64(load[16:], base)             // p_vaddr
	le.PutUint64(load[24:], base)             // p_paddr
	le.PutUint64(load[32:], uint64(len(img))) // p_filesz
	le.PutUint64(load[40:], uint64(len(img))) // p_memsz
	le.PutUint64(load[48:], 0x1000)           // p_align

	stack := img[ehdrSize+phdrSize:]
	le.PutUint32(stack[0:], uint32(elf.PT_GNU_STACK))
	le.PutUint32(stack[4:], uint32(elf.PF_R|elf.PF_W))
	le.PutUint64(stack[48:], 16) // p_align

	copy(img[codeOff:], code)
	return img
}
