//! A TCP proxy for fault tests and benchmarks: put it between a service and its database, then
//! cut it (every connection broken, new ones closed at once), make it refuse (the port closed,
//! as a restarting server does) and open it again.

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;

fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A TCP proxy to `target` that can be cut, made to refuse connections, and restored.
pub struct Proxy {
    /// Where it listens (127.0.0.1, a free port).
    pub addr: SocketAddr,
    target: String,
    up: Arc<AtomicBool>,
    links: Arc<Mutex<Vec<AbortHandle>>>,
    accepting: Mutex<Option<AbortHandle>>,
}

impl Proxy {
    /// A proxy to `target` (`host:port`) on a free port of 127.0.0.1, forwarding.
    pub async fn start(target: String) -> io::Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let proxy = Proxy {
            addr: listener.local_addr()?,
            target,
            up: Arc::new(AtomicBool::new(true)),
            links: Arc::default(),
            accepting: Mutex::new(None),
        };
        proxy.accept_on(listener);
        Ok(proxy)
    }

    /// Forwards every connection `listener` accepts while the proxy is up.
    fn accept_on(&self, listener: TcpListener) {
        let (up, links, target) = (self.up.clone(), self.links.clone(), self.target.clone());
        let task = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if !up.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let target = target.clone();
                let link = tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(&target).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                locked(&links).push(link.abort_handle());
            }
        });
        *locked(&self.accepting) = Some(task.abort_handle());
    }

    /// Breaks every connection through the proxy and closes new ones at once.
    pub fn cut(&self) {
        self.up.store(false, Ordering::SeqCst);
        for link in locked(&self.links).drain(..) {
            link.abort();
        }
    }

    /// As a server that restarts: every connection broken and the port closed, so new
    /// connections are refused (until [`Proxy::listen_again`]).
    pub async fn refuse(&self) {
        self.cut();
        let task = locked(&self.accepting).take();
        if let Some(task) = task {
            task.abort();
        }
        // the listener is dropped with its task
        while TcpStream::connect(self.addr).await.is_ok() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Opens the port again after [`Proxy::refuse`], forwarding.
    pub async fn listen_again(&self) -> io::Result<()> {
        let listener = TcpListener::bind(self.addr).await?;
        self.accept_on(listener);
        self.restore();
        Ok(())
    }

    /// Forwards new connections again after [`Proxy::cut`].
    pub fn restore(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}
