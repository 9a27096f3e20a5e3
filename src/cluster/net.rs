//! Connecting the processes of a cluster run, as timely does (process `p`
//! connects to every process below it, sending its index, and accepts the
//! connections of those above), but silently: timely's own connection code
//! prints its progress on standard output, where process 0 prints the
//! verdicts. Gives up after [`WAIT`].

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread::sleep;
use std::time::{Duration, Instant};

use timely::communication::Hooks;
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};

/// How long a process waits for the others.
const WAIT: Duration = Duration::from_secs(60);

/// The allocators of this process's `threads` workers, connected to the
/// processes at `hosts` (this one is `hosts[me]`), and the guard of the
/// communication threads.
pub fn connect(
    hosts: &[String],
    me: usize,
    threads: usize,
) -> Result<(Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>), String> {
    let deadline = Instant::now() + WAIT;
    let listener = TcpListener::bind(&hosts[me])
        .map_err(|e| format!("cannot listen on {}: {e}", hosts[me]))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot listen on {}: {e}", hosts[me]))?;
    let mut sockets: Vec<Option<TcpStream>> = (0..hosts.len()).map(|_| None).collect();
    for (index, host) in hosts.iter().enumerate().take(me) {
        let mut stream = loop {
            match TcpStream::connect(host) {
                Ok(s) => break s,
                Err(e) if Instant::now() > deadline => {
                    return Err(format!("cannot connect to process {index} at {host}: {e}"));
                }
                Err(_) => sleep(Duration::from_millis(100)),
            }
        };
        let io = |e: std::io::Error| format!("process {index} at {host}: {e}");
        stream.set_nodelay(true).map_err(io)?;
        stream.write_all(&(me as u64).to_ne_bytes()).map_err(io)?;
        sockets[index] = Some(stream);
    }
    while sockets[me + 1..].iter().any(Option::is_none) {
        match listener.accept() {
            Ok((mut stream, _)) => {
                let io = |e: std::io::Error| format!("a connection on {}: {e}", hosts[me]);
                stream.set_nonblocking(false).map_err(io)?;
                stream.set_nodelay(true).map_err(io)?;
                let mut index = [0u8; 8];
                stream.read_exact(&mut index).map_err(io)?;
                let index = u64::from_ne_bytes(index) as usize;
                if index <= me || index >= hosts.len() {
                    return Err(format!(
                        "a connection on {} from an unknown process {index}",
                        hosts[me]
                    ));
                }
                sockets[index] = Some(stream);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() > deadline {
                    let missing = (me + 1..hosts.len()).find(|&i| sockets[i].is_none());
                    return Err(format!(
                        "process {} did not connect to {} in {} s",
                        missing.unwrap_or(me + 1),
                        hosts[me],
                        WAIT.as_secs()
                    ));
                }
                sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(format!("cannot accept on {}: {e}", hosts[me])),
        }
    }
    let hooks = Hooks::default();
    let local =
        ProcessBuilder::new_typed_vector(threads, hooks.refill.clone(), hooks.spill.clone());
    let (builders, guard) = initialize_networking_from_sockets(local, sockets, me, threads, hooks)
        .map_err(|e| format!("cannot start the communication: {e}"))?;
    Ok((
        builders.into_iter().map(AllocatorBuilder::Tcp).collect(),
        Box::new(guard),
    ))
}
