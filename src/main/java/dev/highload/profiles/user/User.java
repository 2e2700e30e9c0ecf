package dev.highload.profiles.user;

import java.time.Instant;
import java.time.LocalDate;
import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.PostLoad;
import jakarta.persistence.PostPersist;
import jakarta.persistence.Table;
import jakarta.persistence.Transient;

import org.springframework.data.domain.Persistable;

/**
 * A registered user. The id is assigned by the application, so the entity tells Spring
 * Data itself whether it is new: a save then inserts without a select first.
 */
@Entity
@Table(name = "users")
class User implements Persistable<UUID> {

	@Id
	private UUID id;

	private String firstName;

	private String secondName;

	private LocalDate birthdate;

	private String biography;

	private String city;

	private String passwordHash;

	private Instant createdAt;

	@Transient
	private boolean isNew;

	protected User() {
	}

	User(UUID id, String firstName, String secondName, LocalDate birthdate, String biography, String city,
			String passwordHash, Instant createdAt) {
		this.id = id;
		this.firstName = firstName;
		this.secondName = secondName;
		this.birthdate = birthdate;
		this.biography = biography;
		this.city = city;
		this.passwordHash = passwordHash;
		this.createdAt = createdAt;
		this.isNew = true;
	}

	@Override
	public UUID getId() {
		return this.id;
	}

	@Override
	public boolean isNew() {
		return this.isNew;
	}

	@PostLoad
	@PostPersist
	void markNotNew() {
		this.isNew = false;
	}

}
