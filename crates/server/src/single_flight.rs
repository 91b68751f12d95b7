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
        let value = flight.get_or_try_init(compute).await.cloned();
        let mut flights = self.flights.lock().unwrap_or_else(|p| p.into_inner());
        // Done, or failed with nobody else waiting: forgotten.
        let forget = value.is_ok() || Arc::strong_count(&flight) == 2;
        if forget
            && flights
                .get(&key)
                .is_some_and(|current| Arc::ptr_eq(current, &flight))
        {
            flights.remove(&key);
        }
        value
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
