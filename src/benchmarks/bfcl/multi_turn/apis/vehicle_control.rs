//! `VehicleControlAPI` (`vehicle_control.py`): engine, doors, climate,
//! brakes, cruise control, navigation and a few unit conversions of a car.
//!
//! Every attribute holds whatever Python would hold, model-written values
//! included (`set_navigation(destination=5)` stores the `int` 5, then
//! fails on `"Navigating to " + 5`), and the arithmetic and comparisons are
//! Python's ([`super::py_num`]), with CPython's exception texts. Where the
//! official method fails part-way, the changes it made before failing stay
//! (`lockDoors` over `['driver', 'trunk']` locks the driver's door, then
//! raises `KeyError` `'trunk'`).
//!
//! Shared and random state:
//! - `get_current_speed` and `get_outside_temperature_from_google` draw from
//!   a private `random.Random(random_seed)` (default 141053), as the
//!   official class does: deterministic.
//! - In long-context mode `get_outside_temperature_from_google` writes
//!   `outsideTemperature` into the module-level dict
//!   `LONG_WEATHER_EXTENSION` and returns that dict: the dict lives in
//!   [`Globals`](super::Globals) and is shared by every instance of one run
//!   of a category, as the module global is shared by one scoring process.
//!
//! Nothing here depends on the date, the time zone or string hashing. A
//! `set` passed where a list of doors is expected is visited in the order
//! it was written (Python's order would depend on string hashes).
//!
//! Texts of itc's own, where Python's would be unclear or unreachable: a
//! scenario whose `doorStatus` is not a dict (no dataset question has one)
//! fails `startEngine` and `lockDoors` with `'dict' object expected for
//! doorStatus`.

use std::sync::Arc;
use std::sync::{Mutex, PoisonError};

use super::long_context;
use super::py_num::{Cmp, Op, binop, compare, iterate, py_float};
use crate::benchmarks::bfcl::arith::truthy;
use crate::benchmarks::bfcl::multi_turn::api::{ApiClass, Output, Param, Signature};
use crate::benchmarks::bfcl::multi_turn::state::State;
use crate::benchmarks::python::random::PyRandom;
use crate::benchmarks::python::value::py_eq;
use crate::benchmarks::python::{PyStr, PyValue, py_repr};

const DEFAULT_SEED: i128 = 141_053;

/// The module-level `LONG_WEATHER_EXTENSION` dict, shared by the instances
/// of one run (`None` until first written: then a copy of the module value).
pub type SharedWeather = Arc<Mutex<Option<PyValue>>>;

const fn p(name: &'static str) -> Param {
    Param::required(name)
}

const METHODS: &[Signature] = &[
    Signature {
        name: "startEngine",
        params: &[p("ignitionMode")],
    },
    Signature {
        name: "fillFuelTank",
        params: &[p("fuelAmount")],
    },
    Signature {
        name: "lockDoors",
        params: &[p("unlock"), p("door")],
    },
    Signature {
        name: "adjustClimateControl",
        params: &[
            p("temperature"),
            Param::optional("unit", "'celsius'"),
            Param::optional("fanSpeed", "50"),
            Param::optional("mode", "'auto'"),
        ],
    },
    Signature {
        name: "get_outside_temperature_from_google",
        params: &[],
    },
    Signature {
        name: "get_outside_temperature_from_weather_com",
        params: &[],
    },
    Signature {
        name: "setHeadlights",
        params: &[p("mode")],
    },
    Signature {
        name: "displayCarStatus",
        params: &[p("option")],
    },
    Signature {
        name: "activateParkingBrake",
        params: &[p("mode")],
    },
    Signature {
        name: "pressBrakePedal",
        params: &[p("pedalPosition")],
    },
    Signature {
        name: "releaseBrakePedal",
        params: &[],
    },
    Signature {
        name: "setCruiseControl",
        params: &[p("speed"), p("activate"), p("distanceToNextVehicle")],
    },
    Signature {
        name: "get_current_speed",
        params: &[],
    },
    Signature {
        name: "display_log",
        params: &[p("messages")],
    },
    Signature {
        name: "estimate_drive_feasibility_by_mileage",
        params: &[p("distance")],
    },
    Signature {
        name: "liter_to_gallon",
        params: &[p("liter")],
    },
    Signature {
        name: "gallon_to_liter",
        params: &[p("gallon")],
    },
    Signature {
        name: "estimate_distance",
        params: &[p("cityA"), p("cityB")],
    },
    Signature {
        name: "get_zipcode_based_on_city",
        params: &[p("city")],
    },
    Signature {
        name: "set_navigation",
        params: &[p("destination")],
    },
    Signature {
        name: "check_tire_pressure",
        params: &[],
    },
    Signature {
        name: "find_nearest_tire_shop",
        params: &[],
    },
];

/// Known distances between two zip codes, either way round.
const DISTANCES: &[(&str, &str, f64)] = &[
    ("83214", "74532", 750.0),
    ("56108", "62947", 320.0),
    ("71354", "83462", 450.0),
    ("47329", "52013", 290.0),
    ("69238", "51479", 630.0),
    ("94016", "83214", 980.0),
    ("94016", "94704", 600.0),
    ("94704", "08540", 2550.0),
    ("94016", "08540", 1950.0),
    ("62947", "47329", 1053.0),
    ("94016", "62947", 780.0),
    ("74532", "94016", 880.0),
];

const ZIPCODES: &[(&str, &str)] = &[
    ("Rivermist", "83214"),
    ("Stonebrook", "74532"),
    ("Maplecrest", "56108"),
    ("Silverpine", "62947"),
    ("Shadowridge", "71354"),
    ("Sunset Valley", "83462"),
    ("Oakendale", "47329"),
    ("Willowbend", "52013"),
    ("Crescent Hollow", "69238"),
    ("Autumnville", "51479"),
    ("San Francisco", "94016"),
];

fn s(text: &str) -> PyValue {
    PyValue::Str(PyStr::new(text))
}

fn f(x: f64) -> PyValue {
    PyValue::Float(x)
}

fn int(i: i64) -> PyValue {
    PyValue::Int(i.to_string())
}

fn dict(entries: Vec<(&str, PyValue)>) -> Output {
    Output::Value(PyValue::Dict(
        entries.into_iter().map(|(k, v)| (s(k), v)).collect(),
    ))
}

fn error(text: &str) -> Output {
    dict(vec![("error", s(text))])
}

fn is(v: &PyValue, text: &str) -> bool {
    py_eq(v, &s(text))
}

/// `0 <= v <= high` as Python chains it.
fn between(v: &PyValue, low: &PyValue, high: &PyValue) -> Result<bool, String> {
    Ok(compare(Cmp::Le, low, v)? && compare(Cmp::Le, v, high)?)
}

/// The `TypeError` of hashing an unhashable key, if `v` is one.
fn unhashable(v: &PyValue) -> Option<String> {
    match v {
        PyValue::List(_) | PyValue::Dict(_) | PyValue::Set(_) => {
            Some(format!("unhashable type: '{}'", v.type_name()))
        }
        PyValue::Tuple(items) => items.iter().find_map(unhashable),
        _ => None,
    }
}

/// An instance of `VehicleControlAPI`.
#[derive(Debug)]
pub struct VehicleControlApi {
    random: PyRandom,
    fuel_level: PyValue,
    battery_voltage: PyValue,
    engine_state: PyValue,
    remaining_unlocked_doors: PyValue,
    door_status: PyValue,
    ac_temperature: PyValue,
    fan_speed: PyValue,
    ac_mode: PyValue,
    humidity_level: PyValue,
    head_light_status: PyValue,
    parking_brake_status: PyValue,
    parking_brake_force: PyValue,
    slope_angle: PyValue,
    brake_pedal_status: PyValue,
    brake_pedal_force: PyValue,
    distance_to_next_vehicle: PyValue,
    cruise_status: PyValue,
    destination: PyValue,
    tire_pressures: [PyValue; 4],
    long_context: bool,
    weather: SharedWeather,
}

impl VehicleControlApi {
    /// `_load_scenario(deepcopy(config), long_context)` on a new instance.
    pub fn new(config: &PyValue, long_context: bool, weather: SharedWeather) -> VehicleControlApi {
        let get = |key: &str, default: PyValue| config.get_str(key).cloned().unwrap_or(default);
        let seed = match config.get_str("random_seed") {
            Some(PyValue::Int(t)) => t.parse().unwrap_or(DEFAULT_SEED),
            Some(PyValue::Bool(b)) => i128::from(*b),
            _ => DEFAULT_SEED,
        };
        let default_doors = PyValue::Dict(
            ["driver", "passenger", "rear_left", "rear_right"]
                .iter()
                .map(|d| (s(d), s("unlocked")))
                .collect(),
        );
        let door_status = get("doorStatus", default_doors);
        let locked = match &door_status {
            PyValue::Dict(entries) => entries.iter().filter(|(_, v)| is(v, "locked")).count(),
            _ => 0,
        };
        VehicleControlApi {
            random: PyRandom::new(seed),
            fuel_level: get("fuelLevel", f(0.0)),
            battery_voltage: get("batteryVoltage", f(12.6)),
            engine_state: get("engineState", s("stopped")),
            remaining_unlocked_doors: int(4 - locked as i64),
            door_status,
            ac_temperature: get("acTemperature", f(25.0)),
            fan_speed: get("fanSpeed", int(50)),
            ac_mode: get("acMode", s("auto")),
            humidity_level: get("humidityLevel", f(50.0)),
            head_light_status: get("headLightStatus", s("off")),
            parking_brake_status: get("parkingBrakeStatus", s("released")),
            parking_brake_force: get("parkingBrakeForce", f(0.0)),
            slope_angle: get("slopeAngle", f(0.0)),
            brake_pedal_status: get("brakePedalStatus", s("released")),
            brake_pedal_force: get("brakePedalForce", f(0.0)),
            distance_to_next_vehicle: get("distanceToNextVehicle", f(50.0)),
            cruise_status: get("cruiseStatus", s("inactive")),
            destination: get("destination", s("None")),
            tire_pressures: [
                get("frontLeftTirePressure", f(32.0)),
                get("frontRightTirePressure", f(32.0)),
                get("rearLeftTirePressure", f(30.0)),
                get("rearRightTirePressure", f(30.0)),
            ],
            long_context,
            weather,
        }
    }

    fn start_engine(&mut self, mode: &PyValue) -> Result<Output, String> {
        if is(mode, "STOP") {
            self.engine_state = s("stopped");
        }
        if compare(Cmp::Gt, &self.remaining_unlocked_doors, &int(0))? {
            let mut names: Vec<u32> = Vec::new();
            let unlocked = match &self.door_status {
                PyValue::Dict(entries) => entries.iter().filter(|(_, v)| is(v, "unlocked")),
                _ => return Err("'dict' object expected for doorStatus".into()),
            };
            for (i, (door, _)) in unlocked.enumerate() {
                let PyValue::Str(name) = door else {
                    return Err(format!(
                        "sequence item {i}: expected str instance, {} found",
                        door.type_name()
                    ));
                };
                if i > 0 {
                    names.extend(", ".chars().map(u32::from));
                }
                names.extend_from_slice(&name.0);
            }
            let mut text = PyStr::new(
                "All doors must be locked before starting the engine. Here are the unlocked doors: ",
            );
            text.0.extend(names);
            return Ok(dict(vec![("error", PyValue::Str(text))]));
        }
        if !is(&self.brake_pedal_status, "pressed") {
            return Ok(error(
                "Brake pedal needs to be pressed when starting the engine.",
            ));
        }
        if !py_eq(&self.brake_pedal_force, &f(1000.0)) {
            return Ok(error(
                "Must press the brake fully before starting the engine.",
            ));
        }
        if compare(Cmp::Lt, &self.fuel_level, &f(0.0))? {
            return Ok(error("Fuel tank is empty."));
        }
        if !is(mode, "START") {
            return Ok(error("Invalid ignition mode."));
        }
        self.engine_state = s("running");
        Ok(dict(vec![
            ("engineState", self.engine_state.clone()),
            ("fuelLevel", self.fuel_level.clone()),
            ("batteryVoltage", self.battery_voltage.clone()),
        ]))
    }

    fn fill_fuel_tank(&mut self, amount: &PyValue) -> Result<Output, String> {
        if compare(Cmp::Lt, amount, &int(0))? {
            return Ok(error("Fuel amount cannot be negative."));
        }
        if compare(
            Cmp::Gt,
            &binop(Op::Add, &self.fuel_level, amount)?,
            &int(50),
        )? {
            return Ok(error("Cannot fill gas above the tank capacity."));
        }
        if compare(Cmp::Lt, &binop(Op::Add, &self.fuel_level, amount)?, &f(0.0))? {
            return Ok(error("Fuel tank is empty. Min fuel level is 0 gallons."));
        }
        self.fuel_level = binop(Op::Add, &self.fuel_level, amount)?;
        Ok(dict(vec![("fuelLevel", self.fuel_level.clone())]))
    }

    fn lock_doors(&mut self, unlock: &PyValue, doors: &PyValue) -> Result<Output, String> {
        let (target, step) = if truthy(unlock) {
            ("unlocked", Op::Add)
        } else {
            ("locked", Op::Sub)
        };
        for door in iterate(doors)? {
            if let Some(e) = unhashable(&door) {
                return Err(e);
            }
            let PyValue::Dict(entries) = &mut self.door_status else {
                return Err("'dict' object expected for doorStatus".into());
            };
            let Some(slot) = entries.iter_mut().find(|(k, _)| py_eq(k, &door)) else {
                return Err(PyStr(py_repr(&door)).to_string_lossy());
            };
            if is(&slot.1, target) {
                continue;
            }
            slot.1 = s(target);
            self.remaining_unlocked_doors = binop(step, &self.remaining_unlocked_doors, &int(1))?;
        }
        Ok(dict(vec![
            ("lockStatus", s(target)),
            (
                "remainingUnlockedDoors",
                self.remaining_unlocked_doors.clone(),
            ),
        ]))
    }

    fn adjust_climate_control(&mut self, args: &[PyValue]) -> Result<Output, String> {
        let [temperature, unit, fan_speed, mode] = args else {
            return Err("adjustClimateControl takes four arguments".into());
        };
        if !between(fan_speed, &int(0), &int(100))? {
            return Ok(error("Fan speed must be between 0 and 100."));
        }
        self.ac_temperature = temperature.clone();
        if is(unit, "fahrenheit") {
            let celsius = binop(Op::Sub, temperature, &int(32))?;
            let celsius = binop(Op::Mul, &celsius, &int(5))?;
            self.ac_temperature = binop(Op::Div, &celsius, &int(9))?;
        }
        self.fan_speed = fan_speed.clone();
        self.ac_mode = mode.clone();
        Ok(dict(vec![
            ("currentACTemperature", temperature.clone()),
            ("climateMode", mode.clone()),
            ("humidityLevel", self.humidity_level.clone()),
        ]))
    }

    fn outside_temperature(&mut self) -> Output {
        let reading = f(self.random.uniform(-10.0, 40.0));
        if !self.long_context {
            return dict(vec![("outsideTemperature", reading)]);
        }
        let mut shared = self.weather.lock().unwrap_or_else(PoisonError::into_inner);
        let weather = shared.get_or_insert_with(|| long_context("LONG_WEATHER_EXTENSION").clone());
        if let PyValue::Dict(entries) = weather {
            let key = s("outsideTemperature");
            match entries.iter_mut().find(|(k, _)| py_eq(k, &key)) {
                Some(slot) => slot.1 = reading,
                None => entries.push((key, reading)),
            }
        }
        Output::Value(weather.clone())
    }

    fn display_car_status(&self, option: &PyValue) -> Output {
        let mut status: Vec<(&str, PyValue)> = Vec::new();
        if self.long_context {
            status.push((
                "metadata",
                long_context("CAR_STATUS_METADATA_EXTENSION").clone(),
            ));
        }
        let option_is = |name: &str| is(option, name);
        if option_is("fuel") {
            status.push(("fuelLevel", self.fuel_level.clone()));
        } else if option_is("battery") {
            status.push(("batteryVoltage", self.battery_voltage.clone()));
        } else if option_is("doors") {
            status.push(("doorStatus", self.door_status.clone()));
        } else if option_is("climate") {
            status.push(("currentACTemperature", self.ac_temperature.clone()));
            status.push(("fanSpeed", self.fan_speed.clone()));
            status.push(("climateMode", self.ac_mode.clone()));
            status.push(("humidityLevel", self.humidity_level.clone()));
        } else if option_is("headlights") {
            status.push(("headlightStatus", self.head_light_status.clone()));
        } else if option_is("parkingBrake") {
            status.push(("parkingBrakeStatus", self.parking_brake_status.clone()));
            status.push(("parkingBrakeForce", self.parking_brake_force.clone()));
            status.push(("slopeAngle", self.slope_angle.clone()));
        } else if option_is("brakePedal") {
            status.push(("brakePedalStatus", self.brake_pedal_status.clone()));
            status.push(("brakePedalForce", self.brake_pedal_force.clone()));
        } else if option_is("engine") {
            status.push(("engineState", self.engine_state.clone()));
        } else {
            status.push(("error", s("Invalid option")));
        }
        dict(status)
    }

    fn activate_parking_brake(&mut self, mode: &PyValue) -> Output {
        let (status, force) = if is(mode, "engage") {
            ("engaged", 500.0)
        } else if is(mode, "release") {
            ("released", 0.0)
        } else {
            return error("Invalid mode");
        };
        self.parking_brake_status = s(status);
        self.parking_brake_force = f(force);
        self.slope_angle = f(10.0);
        let mut out = Vec::new();
        if self.long_context {
            out.push((
                "parkingBrakeInstruction",
                long_context("PARKING_BRAKE_INSTRUCTION").clone(),
            ));
        }
        out.push(("parkingBrakeStatus", s(status)));
        out.push(("_parkingBrakeForce", f(force)));
        out.push(("_slopeAngle", f(10.0)));
        dict(out)
    }

    fn press_brake_pedal(&mut self, position: &PyValue) -> Result<Output, String> {
        if !between(position, &int(0), &int(1))? {
            return Ok(error("Pedal position must be between 0 and 1."));
        }
        if py_eq(position, &int(0)) {
            return Ok(self.release_brake_pedal());
        }
        let force = binop(Op::Mul, position, &int(1000))?;
        self.brake_pedal_status = s("pressed");
        self.brake_pedal_force = force.clone();
        Ok(dict(vec![
            ("brakePedalStatus", s("pressed")),
            ("brakePedalForce", f(py_float(&force)?)),
        ]))
    }

    fn release_brake_pedal(&mut self) -> Output {
        self.brake_pedal_status = s("released");
        self.brake_pedal_force = f(0.0);
        dict(vec![
            ("brakePedalStatus", s("released")),
            ("brakePedalForce", f(0.0)),
        ])
    }

    fn set_cruise_control(&mut self, args: &[PyValue]) -> Result<Output, String> {
        let [speed, activate, distance] = args else {
            return Err("setCruiseControl takes three arguments".into());
        };
        let distance = py_float(distance)?;
        let speed = py_float(speed)?;
        if is(&self.engine_state, "stopped") {
            return Ok(error(
                "Start the engine before activating the cruise control.",
            ));
        }
        self.distance_to_next_vehicle = f(distance);
        let status = if truthy(activate) {
            // `speed % 5 != 0`: CPython's float modulo is zero exactly when
            // fmod is (NaN included, which is not zero).
            if !(0.0..=120.0).contains(&speed) || speed % 5.0 != 0.0 {
                return Ok(error("Invalid speed"));
            }
            "active"
        } else {
            "inactive"
        };
        self.cruise_status = s(status);
        Ok(dict(vec![
            ("cruiseStatus", s(status)),
            ("currentSpeed", f(speed)),
            ("distanceToNextVehicle", f(distance)),
        ]))
    }

    fn estimate_distance(&self, a: &PyValue, b: &PyValue) -> Output {
        let found = DISTANCES
            .iter()
            .find(|(x, y, _)| (is(a, x) && is(b, y)) || (is(a, y) && is(b, x)));
        let mut out = match found {
            Some((_, _, d)) => vec![("distance", f(*d))],
            None => vec![("error", s("distance not found in database."))],
        };
        if self.long_context {
            out.push((
                "intermediaryCities",
                long_context("INTERMEDIARY_CITIES").clone(),
            ));
        }
        dict(out)
    }

    fn check_tire_pressure(&self) -> Result<Output, String> {
        let [fl, fr, rl, rr] = &self.tire_pressures;
        let total = binop(Op::Add, &binop(Op::Add, &binop(Op::Add, fl, fr)?, rl)?, rr)?;
        let mean = binop(Op::Div, &total, &int(4))?;
        let healthy = between(&mean, &int(30), &int(35))?;
        let car_info = if self.long_context {
            long_context("CAR_STATUS_METADATA_EXTENSION").clone()
        } else {
            PyValue::Dict(vec![])
        };
        Ok(dict(vec![
            ("frontLeftTirePressure", fl.clone()),
            ("frontRightTirePressure", fr.clone()),
            ("rearLeftTirePressure", rl.clone()),
            ("rearRightTirePressure", rr.clone()),
            ("healthy_tire_pressure", PyValue::Bool(healthy)),
            ("car_info", car_info),
        ]))
    }
}

impl ApiClass for VehicleControlApi {
    fn class_name(&self) -> &'static str {
        "VehicleControlAPI"
    }

    fn methods(&self) -> &'static [Signature] {
        METHODS
    }

    fn call(&mut self, method: &str, args: Vec<PyValue>) -> Result<Output, String> {
        let arg = |i: usize| args.get(i).cloned().unwrap_or(PyValue::None);
        match method {
            "startEngine" => self.start_engine(&arg(0)),
            "fillFuelTank" => self.fill_fuel_tank(&arg(0)),
            "lockDoors" => self.lock_doors(&arg(0), &arg(1)),
            "adjustClimateControl" => self.adjust_climate_control(&args),
            "get_outside_temperature_from_google" => Ok(self.outside_temperature()),
            "get_outside_temperature_from_weather_com" => Ok(dict(vec![("error", int(404))])),
            "setHeadlights" => {
                let mode = arg(0);
                if !["on", "off", "auto"].iter().any(|m| is(&mode, m)) {
                    return Ok(error("Invalid headlight mode."));
                }
                let status = if is(&mode, "on") { "on" } else { "off" };
                self.head_light_status = s(status);
                Ok(dict(vec![("headlightStatus", s(status))]))
            }
            "displayCarStatus" => Ok(self.display_car_status(&arg(0))),
            "activateParkingBrake" => Ok(self.activate_parking_brake(&arg(0))),
            "pressBrakePedal" => self.press_brake_pedal(&arg(0)),
            "releaseBrakePedal" => Ok(self.release_brake_pedal()),
            "setCruiseControl" => self.set_cruise_control(&args),
            "get_current_speed" => Ok(dict(vec![(
                "currentSpeed",
                f(self.random.uniform(0.0, 120.0)),
            )])),
            "display_log" => Ok(dict(vec![("log", arg(0))])),
            "estimate_drive_feasibility_by_mileage" => {
                let range = binop(Op::Mul, &self.fuel_level, &f(20.0))?;
                let short = compare(Cmp::Lt, &range, &arg(0))?;
                Ok(dict(vec![("canDrive", PyValue::Bool(!short))]))
            }
            "liter_to_gallon" => Ok(dict(vec![(
                "gallon",
                binop(Op::Mul, &arg(0), &f(0.264172))?,
            )])),
            "gallon_to_liter" => Ok(dict(vec![("liter", binop(Op::Mul, &arg(0), &f(3.78541))?)])),
            "estimate_distance" => Ok(self.estimate_distance(&arg(0), &arg(1))),
            "get_zipcode_based_on_city" => {
                let city = arg(0);
                let zip = ZIPCODES
                    .iter()
                    .find(|(name, _)| is(&city, name))
                    .map_or("00000", |(_, zip)| zip);
                Ok(dict(vec![("zipcode", s(zip))]))
            }
            "set_navigation" => {
                self.destination = arg(0);
                let status = binop(Op::Add, &s("Navigating to "), &self.destination)?;
                Ok(dict(vec![("status", status)]))
            }
            "check_tire_pressure" => self.check_tire_pressure(),
            "find_nearest_tire_shop" => Ok(dict(vec![(
                "shopLocation",
                s("456 Oakwood Avenue, Rivermist, 83214"),
            )])),
            other => Err(format!(
                "'VehicleControlAPI' object has no attribute '{other}'"
            )),
        }
    }

    fn state(&self) -> Vec<(&'static str, State)> {
        let st = State::from;
        let [fl, fr, rl, rr] = &self.tire_pressures;
        vec![
            ("fuelLevel", st(&self.fuel_level)),
            ("batteryVoltage", st(&self.battery_voltage)),
            ("engine_state", st(&self.engine_state)),
            ("remainingUnlockedDoors", st(&self.remaining_unlocked_doors)),
            ("doorStatus", st(&self.door_status)),
            ("acTemperature", st(&self.ac_temperature)),
            ("fanSpeed", st(&self.fan_speed)),
            ("acMode", st(&self.ac_mode)),
            ("humidityLevel", st(&self.humidity_level)),
            ("headLightStatus", st(&self.head_light_status)),
            ("parkingBrakeStatus", st(&self.parking_brake_status)),
            ("brakePedalStatus", st(&self.brake_pedal_status)),
            ("distanceToNextVehicle", st(&self.distance_to_next_vehicle)),
            ("cruiseStatus", st(&self.cruise_status)),
            ("destination", st(&self.destination)),
            ("frontLeftTirePressure", st(fl)),
            ("frontRightTirePressure", st(fr)),
            ("rearLeftTirePressure", st(rl)),
            ("rearRightTirePressure", st(rr)),
            ("long_context", State::Bool(self.long_context)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::bfcl::multi_turn::apis::Globals;
    use crate::benchmarks::bfcl::multi_turn::exec::{EntrySetup, Instances};

    /// Runs call strings on one fresh instance (default scenario) through
    /// the executor: each result string, and the instance's state after.
    fn run(
        calls: &[&str],
        long_context: bool,
        globals: &Globals,
    ) -> (Vec<String>, Vec<(&'static str, State)>) {
        let setup = EntrySetup {
            entry_id: "multi_turn_base_0".into(),
            involved_classes: vec!["VehicleControlAPI".into()],
            initial_config: PyValue::Dict(vec![]),
            long_context,
        };
        let mut instances = Instances::new(setup, "m");
        let calls: Vec<String> = calls.iter().map(|c| c.to_string()).collect();
        let results = instances
            .execute(&calls, globals)
            .into_iter()
            .map(|e| e.result.expect("a ported class"))
            .collect();
        let state = instances.states().remove(0).1;
        (results, state)
    }

    fn attr(state: &[(&'static str, State)], name: &str) -> String {
        let (_, value) = state.iter().find(|(k, _)| *k == name).unwrap();
        crate::benchmarks::bfcl::multi_turn::state::canonical_exact(value)
    }

    // Expected texts: the official class run by CPython 3.11 on the same
    // calls, in the same order.
    #[test]
    fn a_failing_call_keeps_what_it_changed_before_failing() {
        let (results, state) = run(
            &[
                "lockDoors(unlock=False, door=['driver', 'trunk'])",
                "lockDoors(unlock=0, door='driver')",
                "lockDoors(unlock=False, door=[['x']])",
                "lockDoors(unlock=False, door=5)",
                "adjustClimateControl(temperature='hot', unit='fahrenheit')",
                "set_navigation(destination=5)",
            ],
            false,
            &Globals::default(),
        );
        assert_eq!(
            results,
            [
                "Error during execution: 'trunk'",
                "Error during execution: 'd'",
                "Error during execution: unhashable type: 'list'",
                "Error during execution: 'int' object is not iterable",
                "Error during execution: unsupported operand type(s) for -: 'str' and 'int'",
                "Error during execution: can only concatenate str (not \"int\") to str",
            ]
        );
        assert_eq!(attr(&state, "remainingUnlockedDoors"), "3");
        assert_eq!(attr(&state, "acTemperature"), "\"hot\"");
        assert_eq!(attr(&state, "destination"), "5");
    }

    #[test]
    fn model_typed_arguments_follow_python_arithmetic() {
        let (results, state) = run(
            &[
                "adjustClimateControl(temperature=100, unit='fahrenheit', fanSpeed=True)",
                "adjustClimateControl(temperature=20, fanSpeed='x')",
                "fillFuelTank(fuelAmount='10')",
                &format!("fillFuelTank(fuelAmount=1{})", "0".repeat(400)),
                "fillFuelTank(fuelAmount=True)",
                "pressBrakePedal(pedalPosition=True)",
                "setCruiseControl(speed='abc', activate=True, distanceToNextVehicle=' 1_0 ')",
                "setCruiseControl(speed=65, activate=True, distanceToNextVehicle=None)",
                "liter_to_gallon(liter='3')",
                "estimate_drive_feasibility_by_mileage(distance='far')",
                "display_log(messages={1: 2})",
                "displayCarStatus(option=['fuel'])",
            ],
            false,
            &Globals::default(),
        );
        assert_eq!(
            results,
            [
                r#"{"currentACTemperature": 100, "climateMode": "auto", "humidityLevel": 50.0}"#,
                "Error during execution: '<=' not supported between instances of 'int' and 'str'",
                "Error during execution: '<' not supported between instances of 'str' and 'int'",
                "Error during execution: int too large to convert to float",
                r#"{"fuelLevel": 1.0}"#,
                r#"{"brakePedalStatus": "pressed", "brakePedalForce": 1000.0}"#,
                "Error during execution: could not convert string to float: 'abc'",
                "Error during execution: float() argument must be a string or a real number, not 'NoneType'",
                "Error during execution: can't multiply sequence by non-int of type 'float'",
                "Error during execution: '<' not supported between instances of 'float' and 'str'",
                r#"{"log": {"1": 2}}"#,
                r#"{"error": "Invalid option"}"#,
            ]
        );
        assert_eq!(attr(&state, "acTemperature"), "37.77777777777778");
        assert_eq!(attr(&state, "fanSpeed"), "true");
        assert_eq!(attr(&state, "fuelLevel"), "1.0");
    }

    #[test]
    fn long_context_weather_is_one_dict_shared_by_the_instances_of_a_run() {
        let globals = Globals::default();
        let (first, _) = run(&["get_outside_temperature_from_google()"], true, &globals);
        assert!(first[0].starts_with(r#"{"-1_day": {"windSpeed": 15.0"#));
        assert!(first[0].ends_with(r#""outsideTemperature": 36.63485703790535}"#));
        let shared = globals
            .long_weather_extension
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let Some(PyValue::Dict(entries)) = shared.as_ref() else {
            panic!("the module dict was written")
        };
        assert_eq!(entries.len(), 16);
        drop(shared);
        // A second instance of the same run sees (and overwrites) it.
        let (second, _) = run(&["get_outside_temperature_from_google()"], true, &globals);
        assert_eq!(second, first);
        let (short, _) = run(&["get_outside_temperature_from_google()"], false, &globals);
        assert_eq!(short[0], r#"{"outsideTemperature": 36.63485703790535}"#);
    }
}
