package mc

import "github.com/basalt-lsf/basalt/internal/config"

func splitServer(word string) (string, int) { return config.ServerAddr(word) }
