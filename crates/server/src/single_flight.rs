//! One computation for many askers: while a value is being computed for a
//! key, whoever asks for the same key waits for that computation instead
//! of starting another. A computation whose asker goes away is taken over
//! by the next waiter; one that fails is tried again by the next waiter.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

use tokio::sync::OnceCell;

/// The computations in flight, by key. Cheap to clone.
pub struct SingleFlight<K, V> {
    flights: Arc<Mutex<HashMap<K, Arc<OnceCell<V>>>>>,
}

impl<K, V> Clone for SingleFlight<K, V> {
    fn clone(&self) -> Self {
        SingleFlight {
            flights: Arc::clone(&self.flights),
        }
    }
}

impl<K, V> Default for SingleFlight<K, V> {
    fn default() -> Self {
        SingleFlight {
            flights: Arc::default(),
        }
    }
}

impl<K: Eq + Hash + Clone, V: Clone> SingleFlight<K, V> {
    /// The value for `key`: the one being computed, or else `compute`'s.
    /// A failure is this asker's; the next waiter computes again.
    pub async fn run<E, F>(&self, key: K, compute: impl FnOnce() -> F) -> Result<V, E>
    where
        F: Future<Output = Result<V, E>>,
    {
        let flight = Arc::clone(
            self.flights
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .entry(key.clone())
                .or_default(),
        );
        let asking = Asking {
            flights: &self.flights,
            key,
            flight,
        };
        asking.flight.get_or_try_init(compute).await.cloned()
    }

    /// Keys in flight.
    pub fn len(&self) -> usize {
        self.flights.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether nothing is in flight.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One asker's hold on a flight. When it lets go (with the value, with a
/// failure, or dropped half way, its request gone), the flight is
/// forgotten once it is done or nobody else waits for it: an asker that
/// goes away leaves nothing behind.
struct Asking<'a, K: Eq + Hash, V> {
    flights: &'a Mutex<HashMap<K, Arc<OnceCell<V>>>>,
    key: K,
    flight: Arc<OnceCell<V>>,
}

impl<K: Eq + Hash, V> Drop for Asking<'_, K, V> {
    fn drop(&mut self) {
        let mut flights = self.flights.lock().unwrap_or_else(|p| p.into_inner());
        // The map's reference and this one.
        let forget = self.flight.initialized() || Arc::strong_count(&self.flight) == 2;
        if forget
            && flights
                .get(&self.key)
                .is_some_and(|current| Arc::ptr_eq(current, &self.flight))
        {
            flights.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use futures_util::FutureExt;
    use tokio::sync::oneshot;

    use super::*;

    #[tokio::test]
    async fn askers_of_one_key_share_one_computation() {
        let flights: SingleFlight<u32, String> = SingleFlight::default();
        let computed = AtomicUsize::new(0);
        let (done, finished) = oneshot::channel::<()>();
        let finished = finished.shared();
        let ask = || {
            let finished = finished.clone();
            flights.run(7, || async {
                computed.fetch_add(1, Ordering::SeqCst);
                let _ = finished.await;
                Ok::<_, ()>("seven".to_owned())
            })
        };
        let mut askers: Vec<_> = (0..12).map(|_| Box::pin(ask())).collect();
        for asker in &mut askers {
            assert!(asker.now_or_never().is_none(), "the value is not ready");
        }
        assert_eq!(computed.load(Ordering::SeqCst), 1);
        let _ = done.send(());
        for asker in askers {
            assert_eq!(asker.await, Ok("seven".to_owned()));
        }
        assert_eq!(computed.load(Ordering::SeqCst), 1);
        assert!(flights.is_empty(), "a finished flight is forgotten");
    }

    #[tokio::test]
    async fn an_asker_that_goes_away_leaves_nothing_behind() {
        let flights: SingleFlight<u32, u32> = SingleFlight::default();
        let (_never, forever) = oneshot::channel::<()>();
        let mut asker = Box::pin(flights.run(3, || async {
            let _ = forever.await;
            Ok::<_, ()>(3)
        }));
        assert!((&mut asker).now_or_never().is_none());
        assert_eq!(flights.len(), 1);
        // A second asker waits for the first's computation, then takes it
        // over when the first goes away.
        let mut second = Box::pin(flights.run(3, || async { Ok::<_, ()>(4) }));
        assert!((&mut second).now_or_never().is_none());
        drop(asker);
        assert_eq!(flights.len(), 1, "the second still waits");
        assert_eq!(second.await, Ok(4));
        assert!(flights.is_empty());
        // Alone, an asker dropped half way is forgotten at once.
        let (_never, forever) = oneshot::channel::<()>();
        let mut alone = Box::pin(flights.run(5, || async {
            let _ = forever.await;
            Ok::<_, ()>(5)
        }));
        assert!((&mut alone).now_or_never().is_none());
        drop(alone);
        assert!(flights.is_empty(), "a flight nobody waits for is forgotten");
    }

    #[tokio::test]
    async fn a_failure_is_tried_again_by_the_next_asker() {
        let flights: SingleFlight<u32, u32> = SingleFlight::default();
        assert_eq!(
            flights.run(1, || async { Err::<u32, _>("no") }).await,
            Err("no")
        );
        assert_eq!(flights.run(1, || async { Ok::<_, &str>(5) }).await, Ok(5));
        assert!(flights.is_empty());
    }
}
