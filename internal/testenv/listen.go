package testenv

import (
	"fmt"
	"net"
	"os"
	"time"
)

// ListenTool is a server for tests that run it inside the sandbox (a test
// binary's tool mode): it listens on 127.0.0.1:$SGTEST_PORT, prints
// LISTENING, and answers every connection with reply for 60 s. With
// readFirst it answers once the client's request has arrived (an HTTP
// client waits for its request to be read).
func ListenTool(reply string, readFirst bool) int {
	l, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("SGTEST_PORT"))
	if err != nil {
		fmt.Println("LISTEN-FAILED", err)
		return 1
	}
	fmt.Println("LISTENING")
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if readFirst {
				c.SetReadDeadline(time.Now().Add(5 * time.Second))
				c.Read(make([]byte, 4096))
			}
			fmt.Fprint(c, reply)
			c.Close()
		}
	}()
	time.Sleep(60 * time.Second)
	return 0
}
