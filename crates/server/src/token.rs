//! Capability tokens and table ids, from the operating system's secure
//! random source. Only hashes of tokens are kept.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use sha2::{Digest, Sha256};

/// Random bytes in a token: 192 bits, 32 base64url characters.
const TOKEN_BYTES: usize = 24;
/// Random bytes in a table id: 128 bits, 22 base64url characters.
const ID_BYTES: usize = 16;

/// A secret token as handed out: only its holder and the client know it.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(..)")
    }
}

impl Token {
    /// A fresh token.
    pub fn generate() -> Result<Token, getrandom::Error> {
        Ok(Token(random_text::<TOKEN_BYTES>()?))
    }

    /// The token's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Its hash, to store and compare.
    pub fn hash(&self) -> TokenHash {
        TokenHash::of(&self.0)
    }
}

/// The SHA-256 of a token, in hex.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TokenHash(String);

impl TokenHash {
    /// The seat key this hash is (see `baghchal_table::seats::Key`).
    pub fn key(self) -> baghchal_table::seats::Key {
        baghchal_table::seats::Key::Link(self.0)
    }

    /// The hash of a presented token.
    pub fn of(token: &str) -> TokenHash {
        let digest = Sha256::digest(token.as_bytes());
        let mut hex = String::with_capacity(64);
        for byte in digest {
            hex.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
            hex.push(char::from(b"0123456789abcdef"[usize::from(byte & 15)]));
        }
        TokenHash(hex)
    }

    /// A hash as another node sends it: 64 lowercase hex digits, or
    /// `None`.
    pub fn from_hex(text: String) -> Option<TokenHash> {
        let hex = text.len() == 64
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        hex.then_some(TokenHash(text))
    }

    /// A hash read back from the database.
    pub fn from_stored(text: String) -> TokenHash {
        TokenHash(text)
    }

    /// The hex text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A fresh table id.
pub fn table_id() -> Result<String, getrandom::Error> {
    random_text::<ID_BYTES>()
}

/// Whether `text` could be a table id (so that junk never reaches the
/// database).
pub fn is_table_id(text: &str) -> bool {
    text.len() == 22
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Whether `text` could be a token (so that junk never reaches the
/// database).
pub fn is_token(text: &str) -> bool {
    text.len() == 32
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn random_text<const N: usize>() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes)?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_32_url_safe_characters_and_differ() {
        let a = Token::generate().unwrap();
        let b = Token::generate().unwrap();
        assert_eq!(a.as_str().len(), 32);
        assert!(a
            .as_str()
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
        assert_ne!(a, b);
        assert_eq!(a.hash(), TokenHash::of(a.as_str()));
        assert_ne!(a.hash(), b.hash());
        assert_eq!(a.hash().as_str().len(), 64);
        assert_eq!(
            TokenHash::from_hex(a.hash().as_str().to_owned()),
            Some(a.hash())
        );
        assert_eq!(TokenHash::from_hex(a.as_str().to_owned()), None);
        assert_eq!(TokenHash::from_hex(a.hash().as_str().to_uppercase()), None);
    }

    #[test]
    fn table_ids_are_recognised() {
        let id = table_id().unwrap();
        assert!(is_table_id(&id));
        assert!(!is_table_id("short"));
        assert!(!is_table_id("q7Xc2LmN0pRsTuVwYz1A3!"));
    }
}
