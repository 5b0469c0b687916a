package schemagen

func init() { domainSources = append(domainSources, domainsB) }

const domainsB = `
= sports_league | a professional sports league: teams, venues, players, coaches, games and player statistics
entity venue/venues 16
  name name gen title Memorial;Liberty;Eagle;Summit;Pioneer;Harbor;Capital;Union / Stadium;Arena;Field;Park;Dome
  @place
  seating_capacity count 8000 80000
  roof_type? code O=Open air;R=Retractable;D=Dome
entity team/teams 16 tm
  name name gen title Bay;River;Mountain;Desert;Coastal;Prairie;Northern;Metro / Hawks;Bears;Comets;Rangers;Titans;Storm;Wolves;Kings
  venue_id ref venue playing home games at
  founded_year count 1900 2015
  conference code E=Eastern conference;W=Western conference
  payroll money 40000000 220000000
entity player/players 300 plyr
  @person 1985 2004
  team_id ref team signed with
  position cat Guard;Forward;Center;Goalkeeper;Defender;Midfielder
  jersey_number count 0 99
  height_cm measure cm 165 215
  contract_salary? money 500000 40000000
  injured? flag
entity coach/coaches 40
  @person 1950 1990
  team_id ref team coaching
  coach_role cat Head coach;Assistant coach;Strength coach;Goalkeeping coach
event game/games 240 gm
  home_team_id ref team hosted by
  away_team_id ref team visited by
  venue_id? ref venue played at
  game_date date 2022 2024
  home_score count 0 140
  away_score count 0 140
  attendance? count 2000 80000
  overtime? flag
link player_game_stat/player_game_stats 900 pgs
  player_id ref player recorded for
  game_id ref game in
  minutes_played count 0 48
  points_scored count 0 50
  assists? count 0 15
  fouls? count 0 6
event? transfer/transfers 60
  player_id ref player of
  from_team_id ref team leaving
  to_team_id ref team joining
  transfer_date date 2018 2024
  transfer_fee? money 100000 90000000
distractor? merchandise_item/merchandise_items 40
  item_name name gen title Home;Away;Retro;Signature;Classic / Jersey;Cap;Scarf;Hoodie;Mug
  price money 8 180
  stock_count count 0 900

= music_label | a record label: artists, albums, tracks, producers, studios, sales and tours
entity artist/artists 60
  stage_name name gen title Velvet;Neon;Midnight;Silver;Wild;Electric;Golden;Lunar;Crimson / Echoes;Foxes;Pilots;Tides;Dreamers;Riot;Hearts;Sparrows
  genre cat Pop;Rock;Hip hop;Jazz;Country;Electronic;R&B;Folk;Metal;Classical
  formed_year count 1975 2022
  home_city city
  member_count? count 1 7
  active flag
entity producer/producers 25
  @person 1950 1995
  royalty_rate measure percent 1 8
entity studio/studios 10
  name name Abbey Row;Sunset Sound;Electric Garden;Blue Room;Harbor Tracks;Echo Chamber;Red Barn;Skyline Studio;Basement Tapes;Glasshouse;North Light
  city city
  hourly_rate money 50 600
entity album/albums 150
  title name gen title Summer;Broken;Paper;Electric;Quiet;Endless;Northern;Velvet;Wild / Hearts;Skies;Roads;Dreams;Nights;Machines;Letters;Tides
  artist_id ref artist recorded by
  producer_id? ref producer produced by
  studio_id? ref studio recorded at
  release_date date 1995 2024
  album_format code LP=Full-length album;EP=Extended play;S=Single;L=Live album
  production_cost? money 5000 600000
entity track/tracks 500 trk
  title name gen title Falling;Running;Golden;Lonely;Burning;Midnight;Silent;Dancing / Away;Home;Light;Rain;Fire;Heart;Road;Stars
  album_id ref album released on
  duration_seconds count 90 480
  explicit? flag
  stream_count count 1000 90000000
event sales_report/sales_reports 500
  album_id ref album about
  report_month date 2019 2024
  channel code D=Digital download;P=Physical;S=Streaming
  units_sold count 0 40000
  revenue money 10 900000
event? tour_date/tour_dates 200
  artist_id ref artist performed by
  show_date date 2021 2024
  venue_city city
  tickets_sold count 100 60000
  gross_receipts? money 2000 4000000
distractor? fan_mail/fan_mail_items 50
  artist_id ref artist sent to
  received_date date 2023 2024
  sentiment text Loving;Grateful;Critical;Funny;Long

= film_studio | a film studio: films, directors, actors, cast roles, budgets, box office and awards
entity director/directors 40
  @person 1940 1990
  debut_year count 1970 2020
entity actor/actors 180
  @person 1940 2005
  agency? name gen company
  union_member? flag
lookup film_genre/film_genres 10
  name name Drama;Comedy;Action;Thriller;Horror;Animation;Documentary;Romance;Science fiction;Western;Musical
entity film/films 140
  title name gen title The Last;Night;Silent;Red;Final;Hidden;Broken;Dark;Burning;Secret / Horizon;Witness;Frontier;Signal;Echo;Harvest;Storm;Protocol;Island;Mirror
  director_id ref director directed by
  film_genre_id ref film_genre classified as
  release_date date 1990 2024
  runtime_minutes count 75 200
  production_budget money 200000 250000000
  mpaa_rating code G=General audiences;PG=Parental guidance;PG-13=Parents strongly cautioned;R=Restricted;NC-17=Adults only
link cast_role/cast_roles 600
  film_id ref film in
  actor_id ref actor played by
  character_name? name gen person
  billing_order count 1 20
  fee? money 10000 20000000
event box_office_week/box_office_weeks 500 bo_wk
  film_id ref film earned by
  week_ending date 1990 2024
  domestic_gross money 1000 120000000
  theater_count count 1 4400
entity? award/awards 80
  film_id ref film given to
  ceremony cat Oscars;Golden Globes;BAFTA;Cannes;Sundance;Critics Choice
  award_category cat Best Picture;Best Director;Best Actor;Best Actress;Best Screenplay;Best Score
  award_year count 1991 2024
  won flag
entity? shooting_location/shooting_locations 60
  film_id ref film used by
  @place
  shooting_days count 1 60
distractor? catering_order/catering_orders 40
  order_date date 2023 2024
  vendor name gen company
  meals count 20 400

= restaurant_chain | a restaurant chain: restaurants, staff, menu items, ingredients, orders, inspections and reviews
entity restaurant/restaurants 25 rest
  name name gen title Blue;Golden;Rustic;Urban;Old Town;Harbor;Green;Smoky / Kitchen;Bistro;Grill;Diner;Table;Cantina;Tavern
  @place
  seats count 30 220
  opened_date date 2005 2023
  has_drive_thru? flag
entity staff_member/staff_members 200 stf
  @person 1960 2005
  restaurant_id ref restaurant working at
  staff_role cat Chef;Line cook;Server;Host;Dishwasher;Manager;Bartender
  hourly_wage money 11 45
  supervisor_id? ref staff_member supervised by
lookup menu_section/menu_sections 8
  name name Starters;Mains;Desserts;Drinks;Sides;Salads;Kids;Breakfast;Specials
entity menu_item/menu_items 80
  name name gen title Grilled;Crispy;Spicy;Smoked;Roasted;Classic;Garden;House / Burger;Salmon;Tacos;Pasta;Salad;Wings;Steak;Soup;Pie;Curry
  menu_section_id ref menu_section listed in
  price money 3 65
  calories? count 80 1800
  vegetarian flag
entity ingredient/ingredients 60
  name name Tomato;Onion;Garlic;Beef;Chicken;Salmon;Rice;Flour;Butter;Cheese;Lettuce;Potato;Egg;Cream;Basil;Lemon;Pepper;Mushroom;Corn;Beans;Tofu;Shrimp;Pork;Avocado;Chili;Carrot;Spinach;Sugar;Olive oil;Bacon
  unit_cost money 0.05 15
  allergen? code N=None;G=Gluten;D=Dairy;NU=Nuts;S=Shellfish;E=Egg
link recipe_line/recipe_lines 240
  menu_item_id ref menu_item used in
  ingredient_id ref ingredient of
  grams measure g 5 400
event guest_check/guest_checks 600 chk
  restaurant_id ref restaurant served at
  server_id? ref staff_member served by
  check_date date 2023 2024
  party_size count 1 12
  check_total money 8 900
  tip_amount? money 0 200
  payment_type code CA=Cash;CR=Credit;MO=Mobile
event health_inspection/health_inspections 90
  restaurant_id ref restaurant inspected at
  inspection_date date 2019 2024
  inspection_score count 60 100
  critical_violations count 0 6
event? online_review/online_reviews 300
  restaurant_id ref restaurant about
  review_date date 2021 2024
  stars count 1 5
  platform cat Yelp;Google;TripAdvisor;OpenTable
distractor? linen_delivery/linen_deliveries 40
  restaurant_id ref restaurant delivered to
  delivery_date date 2024 2024
  napkin_count count 100 2000

= real_estate | a real estate agency: offices, agents, properties, listings, showings, offers and sales
entity agency_office/agency_offices 8
  name name Downtown Realty;Lakeside Homes;Prime Properties;Keystone Realty;Harbor Estates;Summit Homes;Urban Nest;Green Acres Realty;Coastline Realty
  @place
  franchise_fee? money 10000 90000
entity agent/agents 60
  @person 1955 2000
  agency_office_id ref agency_office working from
  license_number name gen serial RE
  commission_rate measure percent 1.5 4
  team_lead_id? ref agent mentored by
lookup property_type/property_types 6
  name name Single-family;Condo;Townhouse;Multi-family;Land;Mobile home;Cooperative
entity property/properties 300 prop
  street_address name gen title 12;48;105;230;77;9;561;1402;88;315 / Oak St;Maple Ave;Pine Rd;Cedar Ln;Elm St;Birch Way;Lake Dr;Hill Ct;Park Blvd;River Rd
  property_type_id ref property_type of type
  @place
  bedrooms count 0 7
  bathrooms measure baths 1 5
  living_area_sqft measure sqft 350 6500
  year_built? count 1900 2024
  lot_size_acres? measure acres 0.05 12
entity homeowner/homeowners 250
  @person 1940 2000
event listing/listings 360 lst
  property_id ref property for
  listing_agent_id ref agent listed by
  owner_id ref homeowner requested by
  list_date date 2020 2024
  asking_price money 60000 3500000
  listing_status code A=Active;P=Pending;S=Sold;W=Withdrawn;E=Expired
event showing/showings 500
  listing_id ref listing of
  agent_id? ref agent conducted by
  showing_date date 2020 2024
  buyer_interest? code 1=Low;2=Medium;3=High
event offer/offers 260
  listing_id ref listing made on
  offer_date date 2020 2024
  offer_amount money 50000 3600000
  financing code C=Cash;F=FHA loan;V=VA loan;CV=Conventional loan
  accepted flag
distractor? yard_sign/yard_signs 50
  sign_code name gen serial YS
  installed_date date 2022 2024
  damaged? flag

= insurance | an insurance company: policyholders, agents, policies, coverages, premiums and claims
entity insurance_agent/insurance_agents 40 agt
  @person 1955 1998
  agency_name? name gen company
  appointed_date date 2000 2023
entity policyholder/policyholders 380 plcyhldr
  @person 1935 2004
  credit_tier? code A=Excellent;B=Good;C=Fair;D=Poor
  smoker? flag
lookup product_line/product_lines 6
  name name Auto;Homeowners;Renters;Life;Umbrella;Pet;Travel;Boat
  regulated flag
entity policy/policies 460 pol
  policy_number name gen serial PL
  policyholder_id ref policyholder held by
  product_line_id ref product_line of line
  insurance_agent_id? ref insurance_agent sold by
  effective_date date 2018 2024
  expiration_date after effective_date 180 1100
  annual_premium money 120 9000
  deductible? money 0 5000
link coverage/coverages 700 cov
  policy_id ref policy part of
  peril_id ref peril against
  coverage_limit money 5000 2000000
lookup peril/perils 12
  name name Fire;Theft;Flood;Collision;Liability;Hail;Windstorm;Vandalism;Earthquake;Medical;Death;Water damage;Glass breakage
  catastrophic flag
event claim/claims 300 clm
  policy_id ref policy filed under
  peril_id? ref peril caused by
  loss_date date 2018 2024
  report_date after loss_date 0 60
  claimed_amount money 100 500000
  paid_amount? money 0 400000
  claim_status code O=Open;C=Closed;D=Denied;L=Litigation
  fraud_suspected? flag
event? premium_payment/premium_payments 600
  policy_id ref policy paid for
  payment_date date 2018 2024
  amount_paid money 20 9000
  late? flag
distractor? call_log/call_logs 80
  call_date date 2024 2024
  duration_seconds count 20 3600
  queue text Sales;Claims;Billing;Retention

= bank | a retail bank: branches, customers, accounts, transactions, loans, cards and officers
entity bank_branch/bank_branches 15 brnch
  name name gen title Main Street;Central;Riverside;Hillcrest;Parkway;Market Square;Harbor;Westgate / Branch;Office;Banking Center
  @place
  vault_capacity? money 100000 5000000
entity bank_officer/bank_officers 50 offcr
  @person 1955 1998
  bank_branch_id ref bank_branch assigned to
  officer_title cat Teller;Personal banker;Loan officer;Branch manager;Advisor
entity client/clients 380 clnt
  @person 1935 2006
  client_segment code RT=Retail;HNW=High net worth;SB=Small business;ST=Student
  credit_score? count 300 850
  relationship_manager_id? ref bank_officer managed by
entity account/accounts 500 acct
  client_id ref client owned by
  bank_branch_id ref bank_branch opened at
  account_type code CHK=Checking;SAV=Savings;MM=Money market;CD=Certificate of deposit
  open_date date 2005 2024
  close_date? after open_date 200 5000
  current_balance money 0 250000
  overdraft_protection? flag
event account_transaction/account_transactions 900 txn
  account_id ref account posted to
  transaction_date date 2023 2024
  transaction_type code D=Deposit;W=Withdrawal;T=Transfer;F=Fee;I=Interest
  amount money 1 20000
  channel? cat ATM;Branch;Online;Mobile;Wire
event loan/loans 200 ln
  client_id ref client borrowed by
  loan_officer_id ref bank_officer approved by
  origination_date date 2012 2024
  principal money 1000 900000
  interest_rate measure percent 2 18
  term_months count 12 360
  loan_status code C=Current;L=Late;D=Default;P=Paid off
entity? debit_card/debit_cards 300 crd
  account_id ref account linked to
  card_number_last4 name gen serial X
  issued_date date 2018 2024
  frozen? flag
distractor? atm_machine/atm_machines 30
  bank_branch_id ref bank_branch installed at
  atm_model cat NCR 6622;Diebold 5500;Hyosung 2800
  last_serviced date 2023 2024

= logistics | a logistics company: warehouses, carriers, trucks, drivers, shipments, packages and tracking scans
entity warehouse/warehouses 12 whse
  name name gen title North;South;East;West;Central;Harbor;Valley;Summit / Distribution Center;Depot;Fulfillment Hub;Warehouse
  @place
  square_meters measure m2 2000 90000
  refrigerated? flag
entity carrier/carriers 10
  name name gen company
  carrier_mode code R=Road;A=Air;S=Sea;RL=Rail
  on_time_rating? measure percent 70 99
entity truck/trucks 60
  plate_number name gen serial TR
  carrier_id ref carrier operated by
  capacity_kg measure kg 1000 26000
  model_year count 2008 2024
entity driver/drivers 80 drvr
  @person 1960 2002
  carrier_id ref carrier employed by
  license_class code A=Class A;B=Class B;C=Class C
  hazmat_certified? flag
entity shipper/shippers 100
  name name gen company
  @place
  contract_tier? code 1=Bronze;2=Silver;3=Gold
event shipment/shipments 500 shpmt
  shipper_id ref shipper sent by
  origin_warehouse_id ref warehouse leaving
  destination_warehouse_id ref warehouse bound for
  truck_id? ref truck carried on
  driver_id? ref driver driven by
  pickup_date date 2023 2024
  delivery_date? after pickup_date 1 12
  freight_charge money 40 18000
  total_weight_kg measure kg 1 20000
entity package/packages 800 pkg
  shipment_id ref shipment part of
  tracking_code name gen serial PK
  weight_kg measure kg 0.1 70
  fragile? flag
event tracking_scan/tracking_scans 900 scan
  package_id ref package scanning
  warehouse_id? ref warehouse recorded at
  scan_date date 2023 2024
  scan_type code P=Picked up;I=In transit;A=Arrived;O=Out for delivery;D=Delivered;X=Exception
distractor? fuel_purchase/fuel_purchases 100
  truck_id ref truck filling
  purchase_date date 2023 2024
  liters measure l 20 600
  price_per_liter money 0.9 2.4

= car_rental | a car rental company: locations, vehicle models, vehicles, customers, rentals, damage and maintenance
entity rental_location/rental_locations 14 loc
  name name gen title Airport;Downtown;Union Station;Harbor;University;Mall;Northgate / Rentals;Counter;Lot
  @place
  open_24h? flag
lookup vehicle_class/vehicle_classes 8
  name name Economy;Compact;Midsize;Full-size;SUV;Minivan;Luxury;Convertible;Pickup
  daily_rate money 25 250
entity car_model/car_models 25
  name name Corolla;Civic;Camry;Accord;Model 3;RAV4;CR-V;Explorer;Tahoe;Odyssey;Mustang;Wrangler;F-150;Altima;Malibu;Sonata;Outback;Jetta;Prius;Escape;Pilot;Highlander;Charger;Elantra;Forte
  make cat Toyota;Honda;Ford;Tesla;Chevrolet;Nissan;Hyundai;Subaru;Kia;Dodge
  vehicle_class_id ref vehicle_class in class
  seats count 2 8
  electric? flag
entity vehicle/vehicles 180 veh
  vin name gen serial VIN
  car_model_id ref car_model a unit of
  home_location_id ref rental_location based at
  model_year count 2015 2024
  odometer_km measure km 100 180000
  color? cat White;Black;Silver;Red;Blue;Gray
entity renter/renters 350
  @person 1945 2005
  license_state? state
  loyalty_member? flag
event rental/rentals 600 rntl
  renter_id ref renter booked by
  vehicle_id ref vehicle of
  pickup_location_id ref rental_location picked up at
  return_location_id? ref rental_location returned to
  pickup_date date 2023 2024
  return_date after pickup_date 1 21
  total_charge money 30 4000
  insurance_option? code N=None;B=Basic;F=Full coverage
event? damage_report/damage_reports 80
  rental_id ref rental noted during
  damage_area cat Bumper;Door;Windshield;Tire;Interior;Mirror
  repair_estimate money 50 9000
  reported_date date 2023 2024
event? service_visit/service_visits 150
  vehicle_id ref vehicle serviced
  service_date date 2022 2024
  service_kind cat Oil change;Tire rotation;Brake service;Inspection;Recall repair
  service_cost money 30 2500
distractor? key_locker/key_lockers 20
  rental_location_id ref rental_location installed at
  slots count 20 200

= hotel | a hotel group: hotels, room types, rooms, guests, reservations, stays, charges and housekeeping
entity hotel/hotels 12 htl
  name name gen title Grand;Royal;Harbor;Park;Riverside;Plaza;Summit;Palm / Hotel;Inn;Resort;Suites;Lodge
  @place
  star_rating count 2 5
  opened_year? count 1920 2022
lookup room_type/room_types 6
  name name Standard;Deluxe;Suite;Family;Penthouse;Studio;Accessible
  max_occupancy count 1 6
entity room/rooms 300 rm
  hotel_id ref hotel located in
  room_type_id ref room_type of type
  room_number count 100 1500
  nightly_rate money 70 1500
  smoking? flag
  ocean_view? flag
entity guest/guests 400 gst
  @person 1940 2005
  nationality? cat USA;Canada;UK;Germany;France;Japan;China;Brazil;Mexico;Australia
  vip_status? code 0=Regular;1=Silver;2=Gold;3=Diamond
event reservation/reservations 550 resv
  guest_id ref guest made by
  room_id ref room for
  booking_date date 2022 2024
  check_in_date after booking_date 1 120
  check_out_date after check_in_date 1 14
  booking_channel code D=Direct;OTA=Online travel agency;C=Corporate;P=Phone
  cancelled? flag
event folio_charge/folio_charges 800 chg
  reservation_id ref reservation billed to
  charge_date date 2022 2024
  charge_category cat Room;Minibar;Restaurant;Spa;Parking;Laundry;Phone
  charge_amount money 2 1200
entity? housekeeper/housekeepers 40
  @person 1960 2003
  hotel_id ref hotel employed at
event? cleaning_task/cleaning_tasks 400
  room_id ref room cleaned
  housekeeper_id ref housekeeper done by
  cleaning_date date 2023 2024
  minutes_spent count 10 90
distractor? conference_room/conference_rooms 20
  hotel_id ref hotel in
  room_label name gen title Oak;Maple;Cedar;Birch;Willow / Room;Hall;Salon
  capacity count 10 500

= research_grants | a university's research grants: faculty, departments, funders, grants, proposals, publications and expenditures
entity academic_unit/academic_units 12 unit
  name name Physics;Chemistry;Biology;Computer Science;Economics;Psychology;Mathematics;Sociology;Engineering;Medicine;Geology;Linguistics;Philosophy
  college cat Sciences;Engineering;Social Sciences;Humanities;Health
  chair_id? ref faculty chaired by
entity faculty/faculty 140 fac
  @person 1945 1992
  academic_unit_id ref academic_unit appointed in
  academic_rank code AP=Assistant professor;ASP=Associate professor;P=Full professor;L=Lecturer
  h_index count 0 120
  tenure_year? count 1985 2024
entity funder/funders 20
  name name National Science Fund;Health Research Council;Energy Office;Arts Endowment;Defense Research Agency;Ocean Trust;Gates-Hall Foundation;Lumen Foundation;Northfield Trust;Clearwater Institute;Keck-Bright Fund;Civic Futures Fund;Starlight Foundation;Alder Trust;Meridian Foundation;Open Data Fund;Agri Research Board;Space Science Board;Climate Action Fund;Literacy Fund;Quantum Initiative
  funder_type code G=Government;F=Foundation;I=Industry
event proposal/proposals 300
  principal_investigator_id ref faculty submitted by
  funder_id ref funder submitted to
  submitted_date date 2015 2024
  requested_amount money 20000 5000000
  decision code A=Awarded;R=Rejected;P=Pending;W=Withdrawn
entity grant_award/grant_awards 150 grnt
  proposal_id ref proposal resulting from
  award_number name gen serial GR
  start_date date 2015 2024
  end_date after start_date 365 1800
  awarded_amount money 15000 4000000
  indirect_rate? measure percent 20 65
link grant_personnel/grant_personnel 350
  grant_award_id ref grant_award staffed on
  faculty_id ref faculty held by
  project_role cat PI;Co-PI;Senior personnel;Postdoc supervisor
  effort_percent measure percent 5 50
event expenditure/expenditures 700 exp
  grant_award_id ref grant_award charged to
  expense_date date 2015 2024
  expense_category cat Salaries;Equipment;Travel;Supplies;Participant support;Subawards
  expense_amount money 20 200000
entity? publication/publications 260 pub
  grant_award_id ref grant_award acknowledging
  title name gen title Toward;Rethinking;On the;Scalable;Robust;A Theory of;Measuring;Learning / Dynamics;Networks;Inference;Climate Models;Proteins;Markets;Catalysts;Language
  journal cat Nature;Science;PLOS One;Physical Review;Cell;JAMA;Econometrica;NeurIPS
  pub_year count 2015 2024
  citation_count count 0 2000
distractor? parking_lot_assignment/parking_lot_assignments 40
  faculty_id ref faculty given to
  lot_code text A;B;C;D;E
  valid_until date 2024 2026

= farm | an agricultural cooperative: farms, fields, crops, plantings, harvests, equipment and sales to buyers
entity farm/farms 25
  name name gen title Green;Sunny;Willow;Cedar;Red Barn;Golden;Prairie;Meadow;Hilltop / Acres;Farm;Ranch;Fields;Orchard;Homestead
  @place
  owner_name name gen person
  organic_certified flag
  total_acres measure acres 20 5000
entity field/fields 120 fld
  farm_id ref farm part of
  field_code name gen serial F
  area_hectares measure ha 1 300
  soil_type cat Clay;Loam;Sand;Silt;Peat;Chalk
  irrigated? flag
lookup crop/crops 14
  name name Corn;Soybeans;Wheat;Cotton;Rice;Barley;Oats;Sorghum;Alfalfa;Potatoes;Tomatoes;Apples;Almonds;Sunflowers;Canola
  crop_family cat Cereal;Legume;Fiber;Tuber;Fruit;Nut;Oilseed;Forage
  market_price_per_ton money 90 9000
event planting/plantings 400 plnt
  field_id ref field sown in
  crop_id ref crop of
  planting_date date 2018 2024
  seed_kg measure kg 20 9000
  variety? text Hybrid A;Hybrid B;Heirloom;Drought-tolerant;Early season;Late season
event harvest/harvests 350 hrvst
  planting_id ref planting gathered from
  harvest_date date 2018 2024
  yield_tons measure t 0.5 1200
  moisture_pct? measure percent 8 30
  grade code 1=Premium;2=Standard;3=Feed grade
entity buyer/buyers 30
  name name gen company
  buyer_type cat Grain elevator;Processor;Exporter;Grocery chain;Cooperative
event sale_contract/sale_contracts 300 sale
  harvest_id ref harvest sold from
  buyer_id ref buyer sold to
  contract_date date 2018 2024
  tons_sold measure t 0.5 900
  contract_value money 200 2000000
entity? equipment/equipment_units 80 eqp
  farm_id ref farm owned by
  equipment_type cat Tractor;Combine;Sprayer;Planter;Irrigation pivot;Truck
  purchase_year count 1990 2024
  hours_used count 0 20000
distractor? weather_note/weather_notes 60
  farm_id ref farm written for
  note_date date 2023 2024
  note text Frost warning;Heavy rain;Dry spell;Hail;Windy;Heat wave

= energy_utility | an electric utility: substations, feeders, service points, customers, meters, readings, bills and outages
entity substation/substations 12 sub
  name name gen title North;South;East;West;Ridge;Valley;Mill;Harbor;Pine;River / Substation;Switchyard
  @place
  voltage_kv measure kV 12 500
  commissioned_year count 1955 2022
entity feeder/feeders 40 fdr
  substation_id ref substation served by
  feeder_code name gen serial FD
  circuit_miles measure mi 2 80
entity utility_customer/utility_customers 380 ucust
  @person 1935 2004
  rate_plan code R1=Residential standard;R2=Residential time-of-use;C1=Commercial;I1=Industrial;L=Low-income assistance
  autopay? flag
  solar_installed? flag
entity meter/meters 420 mtr
  utility_customer_id ref utility_customer installed for
  feeder_id ref feeder fed by
  meter_serial name gen serial MT
  install_date date 2005 2024
  smart_meter flag
event meter_reading/meter_readings 900 rdg
  meter_id ref meter taken from
  reading_date date 2023 2024
  kwh_used measure kWh 0 4000
  estimated? flag
event utility_bill/utility_bills 700 bill
  utility_customer_id ref utility_customer sent to
  bill_date date 2023 2024
  due_date after bill_date 14 30
  amount_due money 5 3000
  paid_date? after bill_date 0 60
event outage/outages 120
  feeder_id ref feeder affecting
  outage_start date 2019 2024
  customers_affected count 1 8000
  duration_minutes count 5 4000
  cause code W=Weather;E=Equipment failure;V=Vegetation;A=Animal;P=Planned;U=Unknown
entity? field_crew/field_crews 20
  crew_name name gen title Alpha;Bravo;Charlie;Delta;Echo;Foxtrot / Crew;Team;Unit
  crew_size count 2 8
  substation_id ref substation based at
distractor? pole_inventory/pole_inventories 100
  feeder_id ref feeder carrying
  pole_material cat Wood;Steel;Concrete;Composite
  height_ft measure ft 25 120

= telecom | a mobile network operator: subscribers, plans, devices, lines, cell towers, calls, data sessions and support tickets
lookup service_plan/service_plans 10
  name name Basic;Unlimited;Family Share;Prepaid 30;Senior;Student;Business Pro;Data Only;Unlimited Plus;Travel;Kids
  monthly_fee money 10 140
  data_cap_gb? measure GB 1 200
entity subscriber/subscribers 380 subs
  @person 1940 2008
  account_status code A=Active;S=Suspended;C=Cancelled
  credit_class? code A=Prime;B=Standard;C=Subprime
  tenure_months count 0 240
entity handset/handsets 20
  model_name name Galaxy S22;Galaxy A54;iPhone 13;iPhone 15;Pixel 7;Pixel 8;Moto G;Nokia G50;OnePlus 11;Xperia 10;iPhone SE;Galaxy Z Flip;Pixel Fold;Moto Edge;Redmi Note
  brand cat Samsung;Apple;Google;Motorola;Nokia;OnePlus;Sony;Xiaomi
  retail_price money 99 1900
  five_g flag
entity phone_line/phone_lines 500 ln
  subscriber_id ref subscriber belonging to
  service_plan_id ref service_plan on
  handset_id? ref handset using
  msisdn name gen serial 555
  activation_date date 2015 2024
  port_in? flag
entity cell_tower/cell_towers 40 twr
  tower_code name gen serial CT
  @place
  technology code 4G=LTE;5G=5G NR;3G=UMTS
  height_m? measure m 15 90
event call_record/call_records 900 cdr
  phone_line_id ref phone_line made from
  cell_tower_id ref cell_tower routed through
  call_date date 2024 2024
  duration_seconds count 1 5400
  call_type code V=Voice;S=SMS;R=Roaming voice
  dropped? flag
event data_session/data_sessions 700
  phone_line_id ref phone_line used by
  session_date date 2024 2024
  megabytes measure MB 0.1 9000
event? support_ticket/support_tickets 150 tkt
  subscriber_id ref subscriber opened by
  opened_date date 2023 2024
  issue_category cat Billing;Coverage;Device;Porting;Roaming;Outage
  resolved flag
distractor? store_kiosk/store_kiosks 20
  kiosk_name name gen title Mall;Airport;Station;Plaza / Kiosk;Booth
  city city
`
